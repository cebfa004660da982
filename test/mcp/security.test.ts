import { createHmac } from "node:crypto";
import { request as httpRequest } from "node:http";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { LATEST_PROTOCOL_VERSION, type CallToolResult, type Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { callerOf } from "../../src/auth/roles.ts";
import { connect, startServer, type McpTestServer } from "./support.ts";

/**
 * Attacks on `/mcp`: a foreign page, a bad or missing key, a rebound Host, an oversized
 * body, another caller's session, a revoked key, and secrets in what is served. The
 * server runs with no anonymous access, one listed CORS origin and a small body limit.
 */
const SIGNING_KEY = "mcp-demo-signing-credential";
const ENV_SECRET = "env-secret-for-the-mcp-door";
let server: McpTestServer;
let admin: string;
let user: string;
const clients: Client[] = [];

beforeAll(async () => {
  process.env.MCP_DOOR_TEST_SECRET = ENV_SECRET;
  // The demo tool reads its credential from the process environment.
  process.env.TAI_DEMO_SIGNING_KEY = SIGNING_KEY;
  server = await startServer({
    env: { TAI_ANONYMOUS_ROLE: "NONE", TAI_CORS_ORIGINS: "https://app.example", TAI_MAX_BODY_BYTES: "4096" },
  });
  admin = await server.rt.keys.create("mcp-sec-admin", "ADMIN");
  user = await server.rt.keys.create("mcp-sec-user", "USER");
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});
afterAll(async () => {
  await server?.stop();
  delete process.env.MCP_DOOR_TEST_SECRET;
  delete process.env.TAI_DEMO_SIGNING_KEY;
});

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
const post = (headers: Record<string, string>, body = LIST) =>
  fetch(server.url, { method: "POST", headers: { ...MCP_HEADERS, ...headers }, body });
const runCount = () => server.rt.db.run.count({ where: { door: "mcp" } });

async function client(key: string) {
  const c = (await connect(server.url, { key })).client;
  clients.push(c);
  return c;
}

describe("who may call /mcp", () => {
  it("should refuse a page of a foreign origin with 403, before authenticating or running anything", async () => {
    const before = await runCount();
    const call = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "x" } },
    });
    const res = await post({ origin: "https://evil.example", authorization: `Bearer ${admin}` }, call);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({
      error: { message: expect.stringContaining("this origin may not call /mcp") },
    });
    expect(await runCount()).toBe(before);
  });

  it("should answer CORS for an origin listed in TAI_CORS_ORIGINS only", async () => {
    const listed = await post({ origin: "https://app.example", authorization: `Bearer ${user}` });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("access-control-allow-origin")).toBe("https://app.example");
    const loopback = await post({ origin: "http://localhost:5173", authorization: `Bearer ${user}` });
    expect(loopback.status).toBe(200);
    expect(loopback.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await fetch(server.url, {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("mcp-session-id");
  });

  it("should refuse a bad key with 401, never falling back to the anonymous role", async () => {
    const res = await post({ authorization: "Bearer tai_not-a-real-key" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="tai42"');
    expect(await res.json()).toMatchObject({ error: { message: "Unauthorized: the API key is unknown or revoked" } });
    await expect(connect(server.url, { key: "tai_not-a-real-key" })).rejects.toThrow(/401|Unauthorized/);
  });

  it("should refuse a caller without a key with 401 when anonymous access is off", async () => {
    const res = await post({});
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { message: expect.stringContaining("TAI_ANONYMOUS_ROLE=NONE") } });
  });

  it("should refuse a Host the loopback server does not answer for (DNS rebinding)", async () => {
    const { port } = new URL(server.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port,
          path: "/mcp",
          method: "POST",
          headers: { ...MCP_HEADERS, host: "rebound.example", authorization: `Bearer ${user}` },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on("error", reject);
      req.end(LIST);
    });
    expect(status).toBe(403);
  });

  it("should answer a body over TAI_MAX_BODY_BYTES with 413, running nothing", async () => {
    const before = await runCount();
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "x".repeat(5000) } },
    });
    const res = await post({ authorization: `Bearer ${user}` }, big);
    expect(res.status).toBe(413);
    expect(await runCount()).toBe(before);
  });

  it("should answer a body that is not JSON-RPC with a parse error", async () => {
    expect((await post({ authorization: `Bearer ${user}` }, "{not json")).status).toBe(400);
    expect((await post({ authorization: `Bearer ${user}` }, JSON.stringify({ hello: "world" }))).status).toBe(400);
  });

  it("should not let another key use a session: it does not exist for that caller", async () => {
    const { transport } = await connect(server.url, { key: admin }).then((c) => (clients.push(c.client), c));
    const res = await post({
      authorization: `Bearer ${user}`,
      "mcp-session-id": transport.sessionId!,
      "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: -32001, message: "Session not found" } });
  });

  it("should end a key's notification stream when the key is revoked", async () => {
    const doomed = await server.rt.keys.create("mcp-sec-doomed", "USER");
    const stream = await fetch(server.url, {
      headers: { accept: "text/event-stream", authorization: `Bearer ${doomed}` },
    });
    expect(stream.status).toBe(200);
    const ended = stream.text();
    await server.rt.keys.revoke("mcp-sec-doomed");
    await expect(ended).resolves.toBeTypeOf("string");
    expect((await post({ authorization: `Bearer ${doomed}` })).status).toBe(401);
  });
});

describe("secrets in what /mcp serves", () => {
  it("should answer a secret-tier tool's output to the ADMIN who called it, once: its progress and stored run stay redacted", async () => {
    const signature = createHmac("sha256", SIGNING_KEY).update("pay 10").digest("hex");
    const progress: Progress[] = [];
    const c = await client(admin);
    const listed = (await c.listTools()).tools.find((t) => t.name === "sign_message")!;
    expect(listed.outputSchema, "sign_message declares no output schema").toBeUndefined();
    const result = (await c.callTool({ name: "sign_message", arguments: { message: "pay 10" } }, undefined, {
      onprogress: (p) => progress.push(p),
    })) as CallToolResult;
    // The answer to its own call is the one place the output goes (docs/security-model.md §3).
    expect(result.structuredContent).toEqual({ algorithm: "HMAC-SHA256", signature });
    expect(JSON.stringify(result)).not.toContain(SIGNING_KEY);
    expect(JSON.stringify(progress)).not.toContain(signature);
    expect(await server.rt.runs.get(result._meta!["tai42/runId"] as string)).toMatchObject({
      status: "SUCCEEDED",
      input: "[redacted]",
      data: "[redacted]",
    });
  });

  it("should scrub a resolved !ENV value from results and progress", async () => {
    await server.rt.presets.create(
      {
        name: "echo_env",
        description: "Echo a configured value.",
        baseTool: "echo",
        fixedKwargs: { text: "!ENV MCP_DOOR_TEST_SECRET" },
      },
      callerOf("ADMIN", "mcp-sec-admin"),
    );
    const progress: Progress[] = [];
    const result = (await (
      await client(user)
    ).callTool({ name: "echo_env", arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p),
    })) as CallToolResult;
    expect(result.content).toEqual([{ type: "text", text: "[redacted]" }]);
    expect(JSON.stringify([result, progress])).not.toContain(ENV_SECRET);
  });

  it("should scrub a resolved !ENV value from an error result", async () => {
    await server.rt.presets.create(
      {
        name: "get_env",
        description: "Read the value stored under a configured key.",
        baseTool: "kv_get",
        fixedKwargs: { key: "!ENV MCP_DOOR_TEST_SECRET" },
      },
      callerOf("ADMIN", "mcp-sec-admin"),
    );
    const result = (await (await client(user)).callTool({ name: "get_env", arguments: {} })) as CallToolResult;
    expect(result).toMatchObject({
      isError: true,
      structuredContent: { error: { kind: "NOT_FOUND", message: 'no value is stored under "[redacted]"' } },
    });
    expect(JSON.stringify(result)).not.toContain(ENV_SECRET);
  });
});
