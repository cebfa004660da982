import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConnectorConnection, UpstreamTool } from "../../../src/connectors/connector-kind.ts";
import { openapiKind } from "../../../src/connectors/openapi/openapi-kind.ts";
import { ToolError } from "../../../src/errors.ts";
import { normalizeResult } from "../../../src/tools/result.ts";
import { ECHO_DOCUMENT } from "./echo-document.ts";
import { connectorEnv, json, startUpstream, upstreamCall, type Upstream } from "./http-upstream.ts";

const TOKEN = "Bearer s3cret-token-4242";
const LONG = "x".repeat(2000);

describe("calling the operations of an OpenAPI document on a real HTTP server", () => {
  let upstream: Upstream;
  let connection: ConnectorConnection;
  let tools: Map<string, UpstreamTool>;

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      const url = new URL(req.url, "http://upstream");
      if (url.pathname.startsWith("/api/status/")) {
        const code = Number(url.pathname.split("/").pop());
        const retryAfter = url.searchParams.get("retryAfter");
        res.writeHead(code, { "content-type": "text/plain", ...(retryAfter ? { "retry-after": retryAfter } : {}) });
        // The body echoes the auth header, as a careless upstream would: it must not reach the error.
        return res.end(`status ${code} for ${String(req.headers.authorization)} ${LONG}`);
      }
      if (url.pathname === "/api/text") {
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
        return res.end("plain words");
      }
      if (url.pathname === "/api/slow") return; // never answers
      if (req.method === "DELETE") {
        res.writeHead(204);
        return res.end();
      }
      json(
        res,
        req.method === "POST" ? 201 : 200,
        { method: req.method, url: req.url, body: req.body },
        { "x-request-id": "req-1", "x-internal": "hidden" },
      );
    });
    const settings = { document: ECHO_DOCUMENT, serverUrl: `${upstream.url}/api`, headers: { Authorization: TOKEN } };
    connection = await openapiKind.connect(connectorEnv(settings));
    tools = new Map((await connection.list()).tools.map((t) => [t.name, t]));
  });
  afterAll(async () => {
    await connection?.close();
    await upstream?.close();
  });

  const call = (name: string, input: Record<string, unknown>, options: Parameters<typeof upstreamCall>[0] = {}) =>
    connection.call(tools.get(name)!, input, upstreamCall(options));
  const failure = async (
    name: string,
    input: Record<string, unknown>,
    options: Parameters<typeof upstreamCall>[0] = {},
  ) => {
    const error = await call(name, input, options).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ToolError);
    return error as ToolError;
  };
  const last = () => upstream.received.at(-1)!;

  it("sends the path, query, header and cookie parameters, the sealed auth header resolved, and no Idempotency-Key on a GET", async () => {
    const result = normalizeResult(
      "getItem",
      await call("getItem", { itemId: "a b/c", tags: ["x", "y"], verbose: true, "X-Trace": "t-1", session: "s1" }),
    );
    expect(last().url).toBe("/api/items/a%20b%2Fc?tags=x&tags=y&verbose=true");
    expect(last().headers["x-trace"]).toBe("t-1");
    expect(last().headers.cookie).toBe("session=s1");
    expect(last().headers.authorization).toBe(TOKEN);
    expect(last().headers["idempotency-key"]).toBeUndefined();
    expect(result.data).toEqual({ method: "GET", url: "/api/items/a%20b%2Fc?tags=x&tags=y&verbose=true", body: "" });
    expect(result.details).toEqual({
      status: 200,
      headers: { "content-type": "application/json", "x-request-id": "req-1" },
    });
  });

  it("sends a JSON body and the call's Idempotency-Key on a POST", async () => {
    const result = normalizeResult(
      "createItem",
      await call("createItem", { body: { name: "n", size: null } }, { idempotencyKey: "idem-9" }),
    );
    expect(last().method).toBe("POST");
    expect(last().headers["content-type"]).toBe("application/json");
    expect(JSON.parse(last().body)).toEqual({ name: "n", size: null });
    expect(last().headers["idempotency-key"]).toBe("idem-9");
    expect((result.details as { status: number }).status).toBe(201);
  });

  it("sends a form body as application/x-www-form-urlencoded, arrays repeated", async () => {
    await call("submitForm", { body: { a: "1 2", b: ["p", "q"] } });
    expect(last().headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(last().body).toBe("a=1+2&b=p&b=q");
  });

  it("returns a text body as text and an empty 204 as no data, with an Idempotency-Key on DELETE", async () => {
    expect(normalizeResult("text", await call("text", {})).data).toBe("plain words");
    const gone = normalizeResult("deleteItem", await call("deleteItem", { itemId: "1" }));
    expect(gone.data).toBeUndefined();
    expect((gone.details as { status: number }).status).toBe(204);
    expect(last().headers["idempotency-key"]).toBe("key-123");
  });

  it("registers the settings' header values for redaction on every call, with the credential after the scheme and their encoded forms", async () => {
    const attempt = upstreamCall();
    await connection.call(tools.get("text")!, {}, attempt);
    expect(attempt.redacted.sort()).toEqual([TOKEN, "Bearer%20s3cret-token-4242", "s3cret-token-4242"].sort());
  });

  const statuses: Array<[number, string]> = [
    [400, "INVALID_INPUT"],
    [422, "INVALID_INPUT"],
    [401, "PERMISSION_DENIED"],
    [403, "PERMISSION_DENIED"],
    [404, "NOT_FOUND"],
    [409, "CONFLICT"],
    [408, "TIMEOUT"],
    [504, "TIMEOUT"],
    [502, "UNAVAILABLE"],
    [418, "UPSTREAM"],
    [500, "UPSTREAM"],
  ];
  for (const [code, kind] of statuses) {
    it(`fails a ${code} answer ${kind}, naming the status with a bounded excerpt that holds no secret`, async () => {
      const error = await failure("status", { code });
      expect(error.kind).toBe(kind);
      expect(error.message).toContain(`HTTP ${code}`);
      expect(error.message).toContain(`status ${code} for [redacted] xxx`);
      expect(error.message).not.toContain("s3cret");
      const excerpt = error.message.slice(error.message.indexOf(`status ${code} for`));
      expect(excerpt.length).toBeLessThanOrEqual(501);
      expect(error.retryAfterSeconds).toBeUndefined();
    });
  }

  it("fails a 429 with Retry-After in seconds RATE_LIMITED with retryAfterSeconds", async () => {
    const error = await failure("status", { code: 429, retryAfter: "7" });
    expect([error.kind, error.retryAfterSeconds]).toEqual(["RATE_LIMITED", 7]);
  });

  it("fails a 503 with Retry-After as an HTTP date UNAVAILABLE with the seconds until then", async () => {
    const at = new Date(Date.now() + 60_000).toUTCString();
    const error = await failure("status", { code: 503, retryAfter: at });
    expect(error.kind).toBe("UNAVAILABLE");
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(58);
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(60);
  });

  it("fails a call past its timeout TIMEOUT, and a cancelled one CANCELLED", async () => {
    const timedOut = await failure("slow", {}, { timeoutMs: 200 });
    expect(timedOut.kind).toBe("TIMEOUT");
    expect(timedOut.message).toContain("200 ms");
    const controller = new AbortController();
    const pending = call("slow", {}, { signal: controller.signal, timeoutMs: 10_000 });
    await expect.poll(() => upstream.received.filter((r) => r.url === "/api/slow").length).toBe(2);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ kind: "CANCELLED" });
  });

  it("fails a call to a server nobody listens on NETWORK, naming its origin", async () => {
    const closed = await startUpstream(() => undefined);
    await closed.close();
    const other = await openapiKind.connect(connectorEnv({ document: ECHO_DOCUMENT, serverUrl: `${closed.url}/api` }));
    const error = (await other.call(tools.get("text")!, {}, upstreamCall()).catch((e: unknown) => e)) as ToolError;
    expect(error).toBeInstanceOf(ToolError);
    expect([error.kind, error.message.includes(closed.url)]).toEqual(["NETWORK", true]);
  });
});
