import type { ServerResponse } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedFetch } from "../../../src/connectors/net/guarded-fetch.ts";
import { until } from "../../graphql/support.ts";
import { everythingOverHttp, localServer, type EverythingServer, type LocalServer } from "./servers.ts";

/** Responses the SSE server holds open, by path, until a test writes to or ends them. */
const held = new Map<string, ServerResponse>();
let server: LocalServer;
let everything: EverythingServer;

beforeAll(async () => {
  server = await localServer((req, res) => {
    if (req.url === "/slow-headers") return void held.set(req.url, res);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write("data: one\n\n");
    held.set(req.url ?? "", res);
  });
  everything = await everythingOverHttp();
}, 30_000);
afterAll(async () => {
  everything?.stop();
  await server.close();
});

const rules = () => ({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: true });
const decoder = new TextDecoder();

describe("the guarded fetch with streams", () => {
  it("reads a server-sent event stream incrementally: the first event arrives while the response is still open", async () => {
    const response = await guardedFetch(rules())(`${server.origin}/sse`);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.body).toBeInstanceOf(ReadableStream);
    const reader = response.body!.getReader();
    expect(decoder.decode((await reader.read()).value)).toBe("data: one\n\n");
    await until("the server holds the stream", () => held.has("/sse"));
    held.get("/sse")!.end("data: two\n\n");
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += decoder.decode(chunk.value);
    expect(rest).toBe("data: two\n\n");
  });

  it("rejects a read with the signal's reason when aborted mid-response", async () => {
    const controller = new AbortController();
    const response = await guardedFetch(rules())(`${server.origin}/aborted`, { signal: controller.signal });
    const reader = response.body!.getReader();
    expect(decoder.decode((await reader.read()).value)).toBe("data: one\n\n");
    const reason = new Error("the run was cancelled");
    controller.abort(reason);
    await expect(reader.read()).rejects.toBe(reason);
  });

  it("rejects with the signal's reason when aborted before the response's headers", async () => {
    const controller = new AbortController();
    const pending = guardedFetch(rules())(`${server.origin}/slow-headers`, { signal: controller.signal });
    await until("the server holds the request", () => held.has("/slow-headers"));
    const reason = new Error("timed out");
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it("rejects an already aborted signal's request without sending it", async () => {
    const before = server.seen.length;
    const reason = new Error("gone");
    await expect(guardedFetch(rules())(`${server.origin}/never`, { signal: AbortSignal.abort(reason) })).rejects.toBe(
      reason,
    );
    expect(server.seen.length).toBe(before);
  });

  it("serves as the MCP SDK's Streamable HTTP fetch: server-everything's echo answers through it", async () => {
    const client = new Client({ name: "net-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(everything.url), { fetch: guardedFetch(rules()) }));
    try {
      const result = await client.callTool({ name: "echo", arguments: { message: "through the guard" } });
      expect(result.content).toEqual([{ type: "text", text: "Echo: through the guard" }]);
    } finally {
      await client.close();
    }
  });

  it("refuses the MCP SDK's connect to a loopback server without allowPrivateNetwork, with the rule", async () => {
    const client = new Client({ name: "net-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(everything.url), {
      fetch: guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: false }),
    });
    const error = await client.connect(transport).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toContain("connector network rules: 127.0.0.1 is a loopback address");
    await client.close();
  });
});
