import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { as } from "../helpers/runtime.ts";
import { connect, startServer, type McpTestServer } from "../mcp/support.ts";

/**
 * Admission control over `/mcp` (docs/flow-control.md §5): a shed `tools/call` answered as JSON is HTTP 503 with
 * `Retry-After`, its body the JSON-RPC error naming `UNAVAILABLE` and the time to retry, and nothing is stored.
 */
describe("a tools/call admission control sheds, over /mcp", () => {
  const servers: { server: McpTestServer; release: () => void }[] = [];
  afterEach(async () => {
    for (const { server, release } of servers.splice(0)) {
      release();
      await server.stop();
    }
  });

  async function full() {
    const app = new App();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    app.tool({ name: "held", description: "Waits for the test.", input: z.object({}) }, async () => (await gate, "ok"));
    const server = await startServer({ app, config: { maxInFlight: 1 } });
    servers.push({ server, release });
    void server.rt.dispatcher.run({ tool: "held", input: {}, caller: as("USER"), door: "mcp" });
    return server;
  }

  it("should answer 503 with Retry-After 1 and the JSON-RPC error's data UNAVAILABLE, retryable, storing nothing", async () => {
    const server = await full();
    const r = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "x" } },
      }),
    });
    expect(r.status).toBe(503);
    expect(r.headers.get("retry-after")).toBe("1");
    const body = (await r.json()) as { id: number; error: { message: string; data: unknown } };
    expect(body.id).toBe(7);
    expect(body.error.message).toMatch(
      /^MCP error -32603: UNAVAILABLE: this instance has 1 dispatches open \(TAI_MAX_IN_FLIGHT\)/,
    );
    expect(body.error.data).toEqual({ code: "UNAVAILABLE", retryable: true, retryAfterSeconds: 1 });
    expect(await server.rt.db.run.count({ where: { tool: "echo" } })).toBe(0);
  });

  it("should make the SDK's own client's call fail with the HTTP status 503, the error's JSON in its message", async () => {
    const server = await full();
    const { client } = await connect(server.url);
    const failed = await client.callTool({ name: "echo", arguments: { text: "x" } }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(StreamableHTTPError);
    expect((failed as StreamableHTTPError).code).toBe(503);
    expect((failed as Error).message).toContain('"retryAfterSeconds":1');
    await client.close();
  });
});
