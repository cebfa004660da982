import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpKind } from "../../../src/connectors/mcp/mcp-kind.ts";
import type { McpConnection } from "../../../src/connectors/mcp/mcp-connection.ts";
import type { UpstreamTool } from "../../../src/connectors/connector-kind.ts";
import { expiringStore, type ExpiringStore } from "../../../src/db/expiring-store.ts";
import { ToolError } from "../../../src/errors.ts";
import { isPark, type Park } from "../../../src/interactions/park.ts";
import { normalizeResult } from "../../../src/tools/result.ts";
import { until } from "../../graphql/support.ts";
import { testRuntime, type TestRuntime } from "../../helpers/runtime.ts";
import { mcpEnv, startEverythingHttp, toolNamed, upstreamCall } from "./support.ts";

let rt: TestRuntime;
let store: ExpiringStore;
let server: Awaited<ReturnType<typeof startEverythingHttp>>;
let conn: McpConnection;
let tools: UpstreamTool[];
/** Every JSON-RPC message the connection POSTed, with its headers: a recording of the real fetch. */
const sent: Array<{ body: Record<string, unknown>; headers: Headers }> = [];

beforeAll(async () => {
  rt = await testRuntime();
  store = expiringStore(rt.db);
  server = await startEverythingHttp();
  const recording: typeof fetch = async (input, init) => {
    if (typeof init?.body === "string")
      sent.push({ body: JSON.parse(init.body) as Record<string, unknown>, headers: new Headers(init.headers) });
    return fetch(input, init);
  };
  const { env } = mcpEnv(
    { url: server.url, headers: { Authorization: "Bearer resolved-token" } },
    { store, bus: rt.bus },
  );
  conn = (await mcpKind.connect({ ...env, fetch: recording })) as McpConnection;
  tools = (await conn.list()).tools;
}, 60_000);

afterAll(async () => {
  await conn?.close();
  await server?.stop();
  await rt?.dispose();
});

describe("an MCP connection over Streamable HTTP (server-everything)", () => {
  it("lists the server's tools with their annotations and output schemas", () => {
    expect(toolNamed(tools, "echo")).toMatchObject({ proposedTier: "read", annotations: { readOnlyHint: true } });
    expect(toolNamed(tools, "get-structured-content").outputSchema).toMatchObject({ type: "object" });
  });

  it("sends the connector's headers on every request through the connection's fetch", () => {
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((s) => s.headers.get("authorization") === "Bearer resolved-token")).toBe(true);
  });

  it("calls echo and sends the run's idempotency key as _meta[tai42/idempotencyKey]", async () => {
    const out = normalizeResult(
      "up_echo",
      await conn.call(
        toolNamed(tools, "echo"),
        { message: "over http" },
        upstreamCall(store, { idempotencyKey: "key-123" }),
      ),
    );
    expect(out.content[0]!.text).toBe("Echo: over http");
    const req = sent.find((s) => s.body.method === "tools/call" && (s.body.params as { name: string }).name === "echo");
    expect((req!.body.params as { _meta: Record<string, unknown> })._meta["tai42/idempotencyKey"]).toBe("key-123");
  });

  it("returns structured content as data", async () => {
    const out = normalizeResult(
      "up_s",
      await conn.call(toolNamed(tools, "get-structured-content"), { location: "Los Angeles" }, upstreamCall(store)),
    );
    expect(out.data).toMatchObject({ temperature: expect.any(Number) });
  });

  it("reports progress and, on cancel, sends notifications/cancelled for the request", async () => {
    const call = upstreamCall(store);
    const pending = conn.call(toolNamed(tools, "trigger-long-running-operation"), { duration: 20, steps: 40 }, call);
    await until("a progress update arrives", () => call.updates.length > 0);
    const reason = new ToolError("cancelled", { kind: "CANCELLED" });
    call.controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    const req = sent.find(
      (s) =>
        s.body.method === "tools/call" && (s.body.params as { name: string }).name === "trigger-long-running-operation",
    )!;
    await until("the cancel notification is sent", () =>
      sent.some(
        (s) =>
          s.body.method === "notifications/cancelled" &&
          (s.body.params as { requestId: unknown }).requestId === req.body.id,
      ),
    );
  });

  it("fails TIMEOUT when the server does not answer in time", async () => {
    const err = await conn
      .call(
        toolNamed(tools, "trigger-long-running-operation"),
        { duration: 30, steps: 1 },
        upstreamCall(store, { timeoutMs: 300 }),
      )
      .catch((e: unknown) => e);
    expect((err as ToolError).kind).toBe("TIMEOUT");
  });

  it("parks on an elicitation and resumes with the answer", async () => {
    const ask = toolNamed(tools, "trigger-elicitation-request");
    const p = (await conn.call(ask, {}, upstreamCall(store))) as Park;
    expect(isPark(p)).toBe(true);
    const out = normalizeResult(
      "up_ask",
      await conn.resume!(ask, p.state, { i: { name: "Hedy Lamarr" } }, upstreamCall(store)),
    );
    expect(out.content.map((b) => b.text).join("\n")).toMatch(/- Name: Hedy Lamarr/);
  });

  it("reports the connection lost when the server goes away, fails the call UNAVAILABLE, and reconnects once it is back", async () => {
    const other = await startEverythingHttp();
    try {
      const { env, heard } = mcpEnv({ url: other.url }, { store, bus: rt.bus });
      const c = await mcpKind.connect(env);
      await other.stop();
      const err = await c
        .call(toolNamed(tools, "echo"), { message: "anyone?" }, upstreamCall(store))
        .catch((e: unknown) => e);
      expect((err as ToolError).kind).toBe("UNAVAILABLE");
      expect(heard.lost).toHaveLength(1);
      await c.close();
      const back = await startEverythingHttp(other.port);
      other.stop = back.stop;
      const again = await mcpKind.connect(mcpEnv({ url: other.url }, { store, bus: rt.bus }).env);
      const out = normalizeResult(
        "up_echo",
        await again.call(toolNamed(tools, "echo"), { message: "back" }, upstreamCall(store)),
      );
      expect(out.content[0]!.text).toBe("Echo: back");
      await again.close();
    } finally {
      await other.stop();
    }
  }, 60_000);

  it("fails a connect to a URL where nothing listens, UNAVAILABLE, naming no header value", async () => {
    const { env } = mcpEnv(
      { url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer other-secret" } },
      { store, bus: rt.bus },
    );
    const err = await mcpKind.connect(env).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as ToolError).kind).toBe("UNAVAILABLE");
    expect((err as ToolError).message).not.toContain("other-secret");
  });
});
