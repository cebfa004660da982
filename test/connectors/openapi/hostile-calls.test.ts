import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConnectorConnection, UpstreamTool } from "../../../src/connectors/connector-kind.ts";
import { guardedFetch } from "../../../src/connectors/net/guarded-fetch.ts";
import { openapiKind } from "../../../src/connectors/openapi/openapi-kind.ts";
import { ToolError } from "../../../src/errors.ts";
import { HOSTILE_DOCUMENT } from "./hostile-document.ts";
import { connectorEnv, startUpstream, upstreamCall, type Upstream } from "./http-upstream.ts";

// A credential with characters JSON escapes, so a reflecting upstream writes it otherwise.
const CREDENTIAL = 'tok"en\\42-s3cret';
const TOKEN = `Bearer ${CREDENTIAL}`;
const GIB = 1024 * 1024 * 1024;

describe("an OpenAPI connector facing a hostile caller and a hostile upstream", () => {
  let upstream: Upstream;
  let connection: ConnectorConnection;
  let tools: Map<string, UpstreamTool>;
  let bigSent = 0;
  const timers = new Set<NodeJS.Timeout>();

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      const path = new URL(req.url, "http://upstream").pathname;
      if (path === "/api/big") {
        // Up to 1 GiB, written as fast as the reader takes it, until the reader hangs up.
        res.writeHead(200, { "content-type": "text/plain" });
        const chunk = Buffer.alloc(1024 * 1024, "a");
        const pump = () => {
          while (bigSent < GIB && !res.destroyed) {
            bigSent += chunk.length;
            if (!res.write(chunk)) return void res.once("drain", pump);
          }
          res.end();
        };
        return pump();
      }
      if (path === "/api/drip") {
        res.writeHead(200, { "content-type": "application/json" });
        const timer = setInterval(() => res.write(" "), 50);
        timers.add(timer);
        return res.on("close", () => clearInterval(timer));
      }
      if (path === "/api/reason") {
        // The reason phrase echoes the credential.
        res.writeHead(403, `forbidden for ${CREDENTIAL}`, { "content-type": "text/plain" });
        return res.end("no");
      }
      if (path === "/api/reflect") {
        res.writeHead(401, { "content-type": "application/json" });
        return res.end(
          JSON.stringify({ error: "bad credentials", header: req.headers.authorization, token: CREDENTIAL }),
        );
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ url: req.url }));
    });
    const settings = {
      document: HOSTILE_DOCUMENT,
      serverUrl: `${upstream.url}/api`,
      headers: { Authorization: TOKEN },
    };
    const fetchFn = guardedFetch({ allowHosts: ["127.0.0.1"], allowPrivateNetwork: true });
    connection = await openapiKind.connect(connectorEnv(settings, fetchFn));
    tools = new Map((await connection.list()).tools.map((t) => [t.name, t]));
  });
  afterAll(async () => {
    for (const timer of timers) clearInterval(timer);
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

  it.each([".", "..", "%2e%2e"])(
    "keeps the path parameter %j inside its segment: never a dot segment the URL parser would resolve",
    async (name) => {
      const before = upstream.received.length;
      const outcome = await call("fileMeta", { name }).then(
        () => null,
        (e: unknown) => e as ToolError,
      );
      if (outcome === null) {
        // Sent: the value stayed one segment of /files/{name}/meta.
        expect(upstream.received.at(-1)!.url).toMatch(/^\/api\/files\/[^/]+\/meta$/);
        expect(upstream.received.at(-1)!.url).not.toMatch(/\/\.\.?\//);
      } else {
        expect(outcome.kind).toBe("INVALID_INPUT");
        expect(outcome.message).toContain("name");
        expect(upstream.received.length).toBe(before);
      }
    },
  );

  it("encodes ../, ? and # in a path parameter, so the upstream sees one segment", async () => {
    await call("fileMeta", { name: "../../admin?x=1#y" });
    expect(upstream.received.at(-1)!.url).toBe("/api/files/..%2F..%2Fadmin%3Fx%3D1%23y/meta");
  });

  it("encodes # in an allowReserved query value, so it cannot cut the query into a fragment", async () => {
    await call("search", { q: "a/b?c#d", scope: "mine" });
    expect(upstream.received.at(-1)!.url).toBe("/api/search?q=a/b?c%23d&scope=mine");
  });

  it("refuses a header parameter with CR or LF INVALID_INPUT, never sending it", async () => {
    const before = upstream.received.length;
    for (const value of ["a\r\nX-Injected: 1", "a\nb", "a\rb"]) {
      const error = await failure("note", { "X-Note": value });
      expect(error.kind).toBe("INVALID_INPUT");
      expect(error.message).toContain("X-Note");
    }
    expect(upstream.received.length).toBe(before);
  });

  it(
    "bounds a 1 GiB answer: the call fails UPSTREAM naming the limit, having read little past it",
    { timeout: 60_000 },
    async () => {
      const error = await failure("big", {}, { timeoutMs: 50_000 });
      expect(error.kind).toBe("UPSTREAM");
      expect(error.message).toMatch(/larger than \d+ bytes/);
      expect(bigSent).toBeLessThan(64 * 1024 * 1024);
    },
  );

  it(
    "fails a slow-drip answer TIMEOUT at the call's timeout, though bytes keep arriving",
    { timeout: 20_000 },
    async () => {
      const started = Date.now();
      const error = await failure("drip", {}, { timeoutMs: 400 });
      expect(error.kind).toBe("TIMEOUT");
      expect(Date.now() - started).toBeLessThan(5000);
    },
  );

  it("keeps a credential the upstream reflects (JSON-escaped, or without its scheme) out of the error", async () => {
    const pending = upstreamCall();
    const error = await connection.call(tools.get("reflect")!, {}, pending).then(
      () => null,
      (e: unknown) => e as ToolError,
    );
    expect(error?.kind).toBe("PERMISSION_DENIED");
    expect(error?.message).toContain("bad credentials");
    expect(error?.message).not.toContain("s3cret");
    // The credential alone is registered too, so the runtime scrubs it from a 2xx result as well.
    expect(pending.redacted).toEqual(expect.arrayContaining([TOKEN, CREDENTIAL]));
  });

  it("keeps a credential the upstream echoes in its reason phrase out of the error", async () => {
    const error = await failure("reason", {});
    expect(error.kind).toBe("PERMISSION_DENIED");
    expect(error.message).toContain("HTTP 403 forbidden for [redacted]");
    expect(error.message).not.toContain("s3cret");
  });
});
