import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { App } from "../../src/app.ts";
import type { Door } from "../../src/dispatch/run-record.ts";
import { gqlClient } from "../helpers/gql.ts";
import { as } from "../helpers/runtime.ts";
import { connect, startServer, type McpTestServer } from "../mcp/support.ts";
import { ofType, runToEnd, useScript } from "../agent/support.ts";

/**
 * Seed 000: a tool kept off the API ("api_tools curates it out") is still one that "an
 * extension wraps, a preset bakes over, and tai tools run or an agent dispatches exactly as
 * with any other tool". Curation decides what the API doors (GraphQL, MCP) list and accept;
 * the in-process doors reach every registered name, and tiers still decide who may run.
 */
let server: McpTestServer;
const bodies: string[] = [];
let admin = "";
const mcpClients: Client[] = [];

beforeAll(async () => {
  const app = new App();
  app.tool(
    { name: "hidden_lookup", description: "Curated off the API.", input: z.object({ q: z.string() }), apiTool: false },
    ({ q }) => {
      bodies.push(`hidden_lookup:${q}`);
      return { found: q.toUpperCase() };
    },
  );
  app.tool(
    { name: "hidden_fenced", description: "Curated and fenced.", input: z.object({}), apiTool: false, tier: "fenced" },
    () => {
      bodies.push("hidden_fenced");
      return "fenced ran";
    },
  );
  app.tool(
    { name: "excluded_echo", description: "Selected out by the manifest.", input: z.object({ text: z.string() }) },
    ({ text }) => {
      bodies.push(`excluded_echo:${text}`);
      return text;
    },
  );
  server = await startServer({ app, config: { demo: true, extensionsDir: "does" } });
  admin = await server.rt.keys.create("admin", "ADMIN");
  await server.rt.keys.create("user", "USER");
  const gql = gqlClient(server.rt);
  const put = await gql(
    `mutation { putManifest(input: { name: "narrow", document: { tools: { exclude: ["excluded_*"] } } }) { version } }`,
    {},
    admin,
  );
  expect(put.errors).toBeUndefined();
  expect(
    (await gql(`mutation { activateManifest(name: "narrow") { active } }`, {}, admin)).data!.activateManifest.active,
  ).toBe(true);
});
beforeEach(() => void bodies.splice(0));
afterAll(async () => {
  for (const c of mcpClients.splice(0)) await c.close();
  await server?.stop();
});

const dispatchAs = (door: Door, tool: string, input: Record<string, unknown>, role: "USER" | "ADMIN" = "USER") =>
  server.rt.dispatcher.run({ tool, input, caller: as(role), door });

async function mcp(key: string): Promise<Client> {
  const { client } = await connect(server.url, { key });
  mcpClients.push(client);
  return client;
}

describe("curation: a tool the API curates out is one `tai tools run` or an agent dispatches exactly as any other tool", () => {
  it.each(["cli", "extension", "runtime"] as const)(
    "should run a tool kept off the API (apiTool: false) and one the active manifest excludes through the %s door",
    async (door) => {
      expect(await dispatchAs(door, "hidden_lookup", { q: "abc" })).toMatchObject({
        status: "SUCCEEDED",
        data: { found: "ABC" },
        door,
      });
      expect(await dispatchAs(door, "excluded_echo", { text: "hi" })).toMatchObject({
        status: "SUCCEEDED",
        content: [{ type: "text", text: "hi" }],
        door,
      });
      expect(bodies).toEqual(["hidden_lookup:abc", "excluded_echo:hi"]);
    },
  );

  it("should let an agent name a curated tool in toolNames and call it through the scripted model", async () => {
    useScript(server.rt.agents, "curation-script", [
      {
        toolCalls: [
          { toolName: "hidden_lookup", input: { q: "x" } },
          { toolName: "excluded_echo", input: { text: "y" } },
        ],
      },
      { text: "done" },
    ]);
    const { started, log } = await runToEnd(server.rt.agents, {
      userMessage: "look it up",
      toolNames: ["hidden_lookup", "excluded_echo"],
      llmProvider: "curation-script",
    });
    const results = ofType(log, "tool_result_step");
    expect(results.map((r) => [r.tool, r.isError])).toEqual([
      ["hidden_lookup", false],
      ["excluded_echo", false],
    ]);
    expect(results[0].result).toEqual({ found: "X" });
    expect(ofType(log, "message_final")[0].text).toBe("done");
    expect(
      (await server.rt.runs.list({ tool: "hidden_lookup" }, 10)).find((r) => r.parentRunId === started.runId),
    ).toMatchObject({ door: "agent", status: "SUCCEEDED" });
    expect(bodies.sort()).toEqual(["excluded_echo:y", "hidden_lookup:x"]);
  });

  it("should let an agent's inline preset bake over a curated tool, as a stored preset may", async () => {
    useScript(server.rt.agents, "curation-preset", [
      { toolCalls: [{ toolName: "lookup_fixed", input: {} }] },
      { text: "ok" },
    ]);
    const { log } = await runToEnd(server.rt.agents, {
      userMessage: "go",
      presets: [
        { name: "lookup_fixed", description: "Fixed query.", baseTool: "hidden_lookup", fixedKwargs: { q: "baked" } },
      ],
      llmProvider: "curation-preset",
    });
    expect(ofType(log, "tool_result_step")[0]).toMatchObject({
      tool: "lookup_fixed",
      isError: false,
      result: { found: "BAKED" },
    });
  });
});

describe("curation decides what the API lists and accepts", () => {
  it("should answer GraphQL dispatch of a curated tool NOT_FOUND without running it, and leave it out of tools and tool", async () => {
    const gql = gqlClient(server.rt);
    for (const [tool, input] of [
      ["hidden_lookup", { q: "a" }],
      ["excluded_echo", { text: "a" }],
    ] as const) {
      const r = await gql(
        `mutation($t: String!, $i: JSONObject!) { dispatch(input: { tool: $t, input: $i }) { status errorKind errorMessage } }`,
        { t: tool, i: input },
        admin,
      );
      expect(r.data!.dispatch).toEqual({
        status: "FAILED",
        errorKind: "NOT_FOUND",
        errorMessage: `no tool named "${tool}" on the surface`,
      });
      expect((await gql(`query($t: String!) { tool(name: $t) { name } }`, { t: tool }, admin)).data!.tool).toBeNull();
    }
    const names = ((await gql(`{ tools { name } }`, {}, admin)).data!.tools as { name: string }[]).map((t) => t.name);
    expect(names).toContain("echo");
    expect(names.filter((n) => n.startsWith("hidden_") || n.startsWith("excluded_"))).toEqual([]);
    expect(bodies).toEqual([]);
  });

  it("should leave a curated tool out of MCP tools/list and refuse its tools/call as not found, without running it", async () => {
    const client = await mcp(admin);
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed).toContain("echo");
    expect(listed.filter((n) => n.startsWith("hidden_") || n.startsWith("excluded_"))).toEqual([]);
    const call = (await client.callTool({ name: "hidden_lookup", arguments: { q: "a" } })) as CallToolResult;
    expect(call.isError).toBe(true);
    expect(JSON.stringify(call.content)).toContain("NOT_FOUND");
    expect(bodies).toEqual([]);
  });
});

describe("tiers still decide who may run a curated tool, on every door", () => {
  it.each(["cli", "agent", "extension", "runtime"] as const)(
    "should refuse a USER a fenced curated tool through the %s door (PERMISSION_DENIED) and let an ADMIN run it",
    async (door) => {
      expect(await dispatchAs(door, "hidden_fenced", {}, "USER")).toMatchObject({
        status: "FAILED",
        errorKind: "PERMISSION_DENIED",
      });
      expect(bodies).toEqual([]);
      expect(await dispatchAs(door, "hidden_fenced", {}, "ADMIN")).toMatchObject({ status: "SUCCEEDED" });
      expect(bodies).toEqual(["hidden_fenced"]);
    },
  );

  it("should give a USER's agent the PERMISSION_DENIED result of a fenced curated tool without running its body", async () => {
    useScript(server.rt.agents, "curation-fenced", [
      { toolCalls: [{ toolName: "hidden_fenced", input: {} }] },
      { text: "I may not." },
    ]);
    const { log } = await runToEnd(
      server.rt.agents,
      { userMessage: "go", toolNames: ["hidden_fenced"], llmProvider: "curation-fenced" },
      as("USER"),
    );
    expect(ofType(log, "tool_result_step")[0]).toMatchObject({ isError: true, result: { kind: "PERMISSION_DENIED" } });
    expect(bodies).toEqual([]);
  });

  it("should still answer an unregistered name NOT_FOUND on an in-process door", async () => {
    expect(await dispatchAs("cli", "never_registered", {})).toMatchObject({
      status: "FAILED",
      errorKind: "NOT_FOUND",
      errorMessage: 'no tool named "never_registered" is registered',
    });
  });
});
