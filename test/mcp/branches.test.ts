import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { callerOf } from "../../src/auth/roles.ts";
import { connect, startServer, textOf, type McpTestServer } from "./support.ts";

/**
 * Branches on the MCP door: an extension's wrapper bound to a tool by the active manifest
 * is a tool of the surface ("BRANCH", named <tool>_<extension>), listed by `tools/list`
 * to the roles its base tool's tier admits and called through the chokepoint.
 */
let server: McpTestServer;
const keys = { READER: "", USER: "" };
const clients: Client[] = [];
const bodyRuns = { store_it: 0 };

beforeAll(async () => {
  const app = new App();
  app.tool({ name: "lookup", description: "Look a word up.", input: z.object({ word: z.string() }) }, ({ word }) => ({
    word,
    length: word.length,
  }));
  app.tool(
    { name: "store_it", description: "A write.", input: z.object({ v: z.string() }), tier: "write" },
    ({ v }) => {
      bodyRuns.store_it++;
      return v;
    },
  );
  app.extension({
    name: "shout",
    kind: "WRAPPER",
    description: "Upper-cases results.",
    create: (tool) => ({
      ...tool,
      run: async (input, ctx) => JSON.stringify(await tool.run(input, ctx)).toUpperCase(),
    }),
  });
  server = await startServer({ app, config: { demo: false } });
  for (const role of ["READER", "USER"] as const)
    keys[role] = await server.rt.keys.create(`mcp-branch-${role.toLowerCase()}`, role);
  const admin = callerOf("ADMIN", "mcp-branch-admin");
  await server.rt.manifests.put(
    {
      name: "shouting",
      description: "Shouting branches.",
      document: { extensions: { lookup: ["shout"], store_it: ["shout"] } },
    },
    undefined,
    admin,
  );
  await server.rt.manifests.activate("shouting", admin);
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});
afterAll(() => server?.stop());

async function client(key: string): Promise<Client> {
  const { client } = await connect(server.url, { key });
  clients.push(client);
  return client;
}

describe("a branch over MCP", () => {
  it("should list a branch to a role its base's tier admits, as a BRANCH with the base's tier and hints", async () => {
    const { tools } = await (await client(keys.READER)).listTools();
    const branch = tools.find((t) => t.name === "lookup_shout");
    expect(branch).toMatchObject({
      description: expect.any(String),
      inputSchema: { type: "object", required: ["word"] },
      annotations: { readOnlyHint: true },
      _meta: { "tai42/origin": "BRANCH", "tai42/tier": "read" },
    });
    expect(tools.map((t) => t.name)).toContain("lookup");
  });

  it("should list a write-tier tool's branch to USER and not to READER", async () => {
    const names = async (key: string) => (await (await client(key)).listTools()).tools.map((t) => t.name);
    expect(await names(keys.USER)).toEqual(
      expect.arrayContaining(["lookup", "lookup_shout", "store_it", "store_it_shout"]),
    );
    const reader = await names(keys.READER);
    expect(reader).not.toContain("store_it_shout");
    expect(reader).not.toContain("store_it");
  });

  it("should run a listed branch through the chokepoint: the wrapper over the tool, recorded with door mcp", async () => {
    const result = (await (
      await client(keys.READER)
    ).callTool({ name: "lookup_shout", arguments: { word: "abc" } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('{"WORD":"ABC","LENGTH":3}');
    expect(await server.rt.runs.get(result._meta!["tai42/runId"] as string)).toMatchObject({
      tool: "lookup_shout",
      status: "SUCCEEDED",
      door: "mcp",
      callerRole: "READER",
    });
  });

  it("should refuse a branch above the caller's tier as PERMISSION_DENIED, never running its base", async () => {
    const before = bodyRuns.store_it;
    const result = (await (
      await client(keys.READER)
    ).callTool({ name: "store_it_shout", arguments: { v: "x" } })) as CallToolResult;
    expect(result).toMatchObject({ isError: true, structuredContent: { error: { kind: "PERMISSION_DENIED" } } });
    expect(bodyRuns.store_it).toBe(before);
  });
});
