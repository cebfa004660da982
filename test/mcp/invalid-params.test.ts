import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { connect, startServer, textOf, type McpTestServer } from "./support.ts";
import { expectReadableInvalidParams, INVALID_REQUESTS, refusalOf } from "./invalid-params-cases.ts";

let server: McpTestServer;
let client: Client;
beforeAll(async () => {
  server = await startServer();
  ({ client } = await connect(server.url));
});
afterAll(async () => {
  await client?.close();
  await server?.stop();
});

describe("/mcp: invalid params are JSON-RPC -32602 naming the argument and what was wrong", () => {
  for (const { method, params, names } of INVALID_REQUESTS)
    it(`should refuse ${method} with ${JSON.stringify(params)} as -32602 naming "${names}"`, async () => {
      expectReadableInvalidParams(await refusalOf(client, { method, params }), method, names);
    });

  it("should still answer valid requests on the same session", async () => {
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("echo");
    expect(
      textOf((await client.callTool({ name: "echo", arguments: { text: "still here" } })) as CallToolResult),
    ).toContain("still here");
  });
});
