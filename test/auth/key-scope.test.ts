import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { callerOf, type Caller } from "../../src/auth/roles.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { ofType, runToEnd, useScript } from "../agent/support.ts";
import { agentTestApp } from "../agent/fixtures.ts";
import { gql } from "../graphql/support.ts";
import { connect, textOf } from "../mcp/support.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const DISPATCH =
  "mutation ($tool: String!, $input: JSONObject!) { dispatch(input: { tool: $tool, input: $input }) { id status errorKind errorMessage } }";
const TOOLS = "{ tools { name } }";
const CREATE =
  "mutation ($name: String!, $role: Role!, $scope: JSONObject) { createApiKey(name: $name, role: $role, scope: $scope) }";
const ADMIN = callerOf("ADMIN");

let rt: TestRuntime | undefined;
let server: TaiServer | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await server?.stop();
  await rt?.dispose();
  server = rt = undefined;
});

async function setup(options: { listen?: boolean; agents?: boolean } = {}) {
  rt = await testRuntime({ env: { TAI_ANONYMOUS_ROLE: "NONE" }, ...(options.agents ? { app: agentTestApp() } : {}) });
  server = buildApp(rt);
  const url = options.listen ? (await server.start(0, "127.0.0.1")).replace(/\/graphql$/, "/mcp") : "";
  const admin = await rt.keys.create("root", "ADMIN");
  const as = (key: string, query: string, variables?: Record<string, unknown>) =>
    gql(server!, query, { variables, headers: { authorization: `Bearer ${key}` } });
  return { rt, url, admin, as };
}

const names = (r: { body: { data?: unknown } }) =>
  ((r.body.data as { tools: { name: string }[] }).tools ?? []).map((t) => t.name).sort();

describe("a key scoped to a list of tools", () => {
  it("should dispatch only its tools over GraphQL, refusing another as a tier refusal is, stored", async () => {
    const { rt, as } = await setup();
    const key = await rt.keys.create("narrow", "USER", undefined, undefined, { scope: { tools: ["echo"] } });
    const ran = await as(key, DISPATCH, { tool: "echo", input: { text: "hi" } });
    expect(ran.body.data!.dispatch).toMatchObject({ status: "SUCCEEDED" });
    const refused = await as(key, DISPATCH, { tool: "calculate", input: { op: "add", a: 1, b: 2 } });
    expect(refused.body.data!.dispatch).toMatchObject({
      status: "FAILED",
      errorKind: "PERMISSION_DENIED",
      errorMessage: 'the scope of API key "narrow" (its tool list) excludes tool "calculate"',
    });
    const id = (refused.body.data!.dispatch as { id: string }).id;
    expect(await rt.db.run.findUnique({ where: { id } })).toMatchObject({ status: "FAILED", callerKey: "narrow" });
  });

  it("should list only the tools in its scope", async () => {
    const { rt, admin, as } = await setup();
    const key = await rt.keys.create("narrow", "USER", undefined, undefined, {
      scope: { tools: ["echo", "clock", "not_yet_registered"] },
    });
    expect(names(await as(key, TOOLS))).toEqual(["clock", "echo"]);
    expect(names(await as(admin, TOOLS))).toContain("calculate");
    expect((await as(key, '{ tool(name: "calculate") { name } }')).body.data).toEqual({ tool: null });
  });

  it("should refuse an out-of-scope tool on /mcp and list only its tools", async () => {
    const { rt, url } = await setup({ listen: true });
    const key = await rt.keys.create("narrow", "USER", undefined, undefined, { scope: { tools: ["echo"] } });
    const { client } = await connect(url, { key });
    clients.push(client);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["echo"]);
    const refused = await client.callTool({ name: "calculate", arguments: { op: "add", a: 1, b: 2 } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused as CallToolResult)).toContain(
      'the scope of API key "narrow" (its tool list) excludes tool "calculate"',
    );
    expect(await rt.db.run.findFirst({ where: { tool: "calculate", door: "mcp" } })).toMatchObject({
      status: "FAILED",
      errorKind: "PERMISSION_DENIED",
    });
    expect(await client.callTool({ name: "echo", arguments: { text: "hi" } })).not.toMatchObject({ isError: true });
  });

  it("should take the key's scope as it is now for stored work going on later", async () => {
    const { rt } = await setup();
    await rt.keys.create("narrow", "USER", undefined, undefined, { scope: { tools: ["echo"] } });
    const { callerNow } = await import("../../src/auth/stored-caller.ts");
    const now = (await callerNow(rt.db, { callerRole: "USER", callerKey: "narrow" })) as Caller;
    expect(now.scope).toEqual({ declared: { tools: ["echo"] } });
    await rt.db.apiKey.update({ where: { name: "narrow" }, data: { scope: { tools: ["clock"] } } });
    expect(((await callerNow(rt.db, { callerRole: "USER", callerKey: "narrow" })) as Caller).scope).toEqual({
      declared: { tools: ["clock"] },
    });
  });
});

describe("a key scoped to a manifest", () => {
  it("should run and list only the tools that manifest selects", async () => {
    const { rt, as } = await setup();
    await rt.manifests.put({ name: "clocks", document: { tools: { include: ["cl*"] } } }, undefined, ADMIN);
    const key = await rt.keys.create("m", "USER", undefined, undefined, { scope: { manifest: "clocks" } });
    expect(names(await as(key, TOOLS))).toEqual(["clock"]);
    expect((await as(key, DISPATCH, { tool: "clock", input: {} })).body.data!.dispatch).toMatchObject({
      status: "SUCCEEDED",
    });
    expect((await as(key, DISPATCH, { tool: "echo", input: { text: "x" } })).body.data!.dispatch).toMatchObject({
      errorKind: "PERMISSION_DENIED",
      errorMessage: 'the scope of API key "m" (its manifest "clocks") excludes tool "echo"',
    });
  });
});

describe("bad scopes", () => {
  it("should refuse an empty tool list, a malformed scope and an unknown manifest with BAD_USER_INPUT and store nothing", async () => {
    const { rt, admin, as } = await setup();
    const cases: [unknown, string][] = [
      [{ tools: [] }, 'invalid scope for key "bad": /scope/tools: must name at least one tool'],
      [{ manifest: "nowhere" }, 'invalid scope for key "bad": no manifest named "nowhere"'],
      [{ tools: ["echo"], manifest: "m" }, "must have exactly one of tools and manifest"],
      [{}, "must have exactly one of tools and manifest"],
    ];
    for (const [scope, message] of cases) {
      const res = await as(admin, CREATE, { name: "bad", role: "USER", scope });
      expect(res.body.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
      expect(res.body.errors?.[0]?.message).toContain(message);
    }
    expect(await rt.db.apiKey.count({ where: { name: "bad" } })).toBe(0);
  });
});

describe("an agent run by a scoped key", () => {
  it("should give the agent a PERMISSION_DENIED result for an out-of-scope tool, never running it", async () => {
    const { rt } = await setup({ agents: true });
    const key = await rt.keys.create("agentic", "USER", undefined, undefined, {
      scope: { tools: ["tools_agent", "calculate"] },
    });
    const caller = (await rt.keys.verify(key))!;
    useScript(rt.agents, "s", [
      { toolCalls: [{ toolName: "echo", input: { text: "x" } }] },
      { toolCalls: [{ toolName: "calculate", input: { op: "add", a: 1, b: 2 } }] },
      { text: "done" },
    ]);
    const { log } = await runToEnd(
      rt.agents,
      { userMessage: "go", toolNames: ["echo", "calculate"], llmProvider: "s" },
      caller,
    );
    const [echo, calc] = ofType(log, "tool_result_step");
    expect(echo).toMatchObject({ tool: "echo", isError: true, result: { kind: "PERMISSION_DENIED" } });
    expect(echo.result).toMatchObject({
      message: 'the scope of API key "agentic" (its tool list) excludes tool "echo"',
    });
    expect(calc).toMatchObject({ tool: "calculate", isError: false });
    expect(await rt.db.run.findMany({ where: { tool: "echo" }, select: { status: true } })).toEqual([
      { status: "FAILED" },
    ]);
  });

  it("should refuse to start an agent outside the key's scope with FORBIDDEN and store nothing", async () => {
    const { rt } = await setup({ agents: true });
    const key = await rt.keys.create("noagent", "USER", undefined, undefined, { scope: { tools: ["calculate"] } });
    const caller = (await rt.keys.verify(key))!;
    await expect(
      rt.agents.start({ agent: "tools_agent", options: { userMessage: "x", toolNames: ["calculate"] }, caller }),
    ).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: 'the scope of API key "noagent" (its tool list) excludes tool "tools_agent"',
    });
    expect(await rt.db.agentRun.count()).toBe(0);
  });
});
