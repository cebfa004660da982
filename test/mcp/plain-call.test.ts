import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { park } from "../../src/interactions/park.ts";
import { until } from "../graphql/support.ts";
import { startServer, type McpTestServer } from "./support.ts";

/**
 * The JSON fast path (docs/mcp.md §5): one plain `tools/call` is answered without the
 * SDK's server and transport. Its answer must be the SDK's, byte for byte: a batch of
 * one call is answered by the SDK exactly as a single request would be (one JSON body),
 * so each plain call here is compared with the same call sent as a batch of one. What
 * the fast path leaves to the SDK must still behave.
 */
let server: McpTestServer;
let user = "";
let session = "";
let cancelled: (() => void) | null = null;

beforeAll(async () => {
  const app = new App();
  app.tool(
    {
      name: "double",
      description: "Doubles.",
      input: z.object({ n: z.number().int() }),
      output: z.object({ doubled: z.number() }),
    },
    ({ n }) => ({ doubled: n * 2 }),
  );
  app.tool(
    { name: "hang", description: "Runs until cancelled.", input: z.object({}), timeoutSeconds: 60 },
    (_input, ctx) => {
      return new Promise((_, reject) =>
        ctx.signal.addEventListener("abort", () => (cancelled?.(), reject(ctx.signal.reason)), { once: true }),
      );
    },
  );
  app.tool({ name: "approve", description: "Ask a person to approve.", input: z.object({}), pauses: true }, () =>
    park({ interactions: [{ question: "Approve?" }] }),
  );
  server = await startServer({ app });
  user = await server.rt.keys.create("plain-user", "USER");
  const init = await post(
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: { elicitation: { form: {} } },
        clientInfo: { name: "t", version: "1" },
      },
    },
    {},
  );
  session = init.headers.get("mcp-session-id") ?? "";
  await init.text();
  expect(session).toMatch(/^mcp_/);
});
afterAll(() => server?.stop());

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

function post(
  body: unknown,
  headers: Record<string, string> = { "mcp-session-id": session, "mcp-protocol-version": LATEST_PROTOCOL_VERSION },
): Promise<Response> {
  return fetch(server.url, {
    method: "POST",
    headers: { ...MCP_HEADERS, authorization: `Bearer ${user}`, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Status, content type and body, with run ids made comparable (each call makes its own run). */
async function answer(res: Response): Promise<{ status: number; type: string | null; body: string }> {
  const body = (await res.text()).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<run>");
  return { status: res.status, type: res.headers.get("content-type"), body };
}

const call = (name: string, args: unknown, meta?: Record<string, unknown>, id: number | string = 7) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

describe("a plain tools/call", () => {
  const cases: [string, ReturnType<typeof call>][] = [
    ["a success with structured content", call("double", { n: 21 })],
    ["a success, without a session", call("echo", { text: "hello" })],
    ["invalid arguments (a FAILED run with its issues)", call("double", { n: "x" })],
    ["an unknown tool", call("nope", {})],
    ["a forbidden tier", call("admin_stats", {})],
    [
      "a malformed idempotency key (a JSON-RPC error)",
      call("echo", { text: "x" }, { "tai42/idempotencyKey": "" }, "str-id"),
    ],
    ["a parked run, without a session (its client cannot be asked)", call("approve", {})],
  ];
  for (const [what, body] of cases) {
    it(`should answer ${what} exactly as the SDK does`, async () => {
      const headers = /without a session/.test(what) ? {} : undefined;
      const fast = await answer(await post(body, headers));
      const sdk = await answer(await post([body], headers));
      expect(fast.status).toBe(200);
      expect(fast).toEqual(sdk);
    });
  }

  it("should answer the SDK's way, with the same headers", async () => {
    const res = await post(call("echo", { text: "hi" }));
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("mcp-session-id")).toBeNull();
    expect(JSON.parse(await res.text())).toMatchObject({
      jsonrpc: "2.0",
      id: 7,
      result: { content: [{ type: "text", text: "hi" }], _meta: { "tai42/status": "SUCCEEDED" } },
    });
  });

  it("should be cancelled by notifications/cancelled on another POST of the session: an empty 202, and the run CANCELLED", async () => {
    const stopped = new Promise<void>((r) => (cancelled = r));
    const pending = post(call("hang", {}, undefined, "hang-1"));
    let runId = "";
    await until("the run to start", async () => {
      runId =
        (await server.rt.db.run.findFirst({ where: { tool: "hang", status: "RUNNING" }, select: { id: true } }))?.id ??
        "";
      return runId !== "";
    });
    const note = await post({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "hang-1", reason: "stop" },
    });
    expect(note.status).toBe(202);
    const res = await pending;
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
    await stopped;
    await until("the run to be cancelled", async () => (await server.rt.runs.get(runId))?.status === "CANCELLED");
    expect(await server.rt.runs.get(runId)).toMatchObject({
      errorKind: "CANCELLED",
      errorMessage: "the MCP client cancelled the call: stop",
    });
  });
});

describe("what the fast path leaves to the SDK", () => {
  it("should answer a batch of calls together", async () => {
    const res = await post([call("echo", { text: "a" }, undefined, 1), call("echo", { text: "b" }, undefined, 2)]);
    const body = JSON.parse(await res.text()) as { id: number; result: { content: { text: string }[] } }[];
    expect(body.map((r) => [r.id, r.result.content[0].text])).toEqual([
      [1, "a"],
      [2, "b"],
    ]);
  });

  it("should stream a call with a progress token, its progress first", async () => {
    const res = await post(call("echo", { text: "p" }, { progressToken: "tok" }));
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const text = await res.text();
    expect(text).toContain('"notifications/progress"');
    expect(text.indexOf('"notifications/progress"')).toBeLessThan(text.indexOf('"result"'));
  });

  it("should stream a call of a tool that may pause when the session's client can be asked", async () => {
    const pending = post(call("approve", {}, undefined, "ask-1"));
    const res = await pending;
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('"elicitation/create"');
    await reader.cancel();
  });

  it("should open no session for an initialize the transport refuses", async () => {
    const before = await server.rt.db.cacheEntry.count({ where: { tool: "mcp-session" } });
    const init = {
      jsonrpc: "2.0",
      id: 9,
      method: "initialize",
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "t", version: "1" } },
    };
    const refused = await post(init, { accept: "application/json" });
    expect(refused.status).toBe(406);
    expect(refused.headers.get("mcp-session-id")).toBeNull();
    expect(await server.rt.db.cacheEntry.count({ where: { tool: "mcp-session" } })).toBe(before);
  });

  it("should refuse what the SDK's transport refuses, as it does", async () => {
    const body = call("echo", { text: "x" });
    expect((await post(body, { "mcp-session-id": session, "mcp-protocol-version": "1999-01-01" })).status).toBe(400);
    expect((await post(body, { accept: "application/json" })).status).toBe(406);
    expect((await post(body, { "content-type": "text/plain" })).status).toBe(415);
    const missingName = await post({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { arguments: {} } });
    expect(JSON.parse(await missingName.text())).toMatchObject({ id: 3, error: { code: expect.any(Number) } });
    expect((await post({ jsonrpc: "1.0", id: 3, method: "tools/call", params: { name: "echo" } })).status).toBe(400);
  });
});
