import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { App } from "../../../src/app.ts";
import { databaseText } from "../../helpers/database-text.ts";
import { as, testRuntime, type TestRuntime } from "../../helpers/runtime.ts";
import { ECHO_DOCUMENT } from "./echo-document.ts";
import { json, startUpstream, type Upstream } from "./http-upstream.ts";

const TOKEN = "tok-openapi-e2e-7f3a";
let rt: TestRuntime;
let upstream: Upstream;
/** How many 503s /api/items answers before a 201. */
let failuresLeft = 0;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    if (req.method === "POST" && failuresLeft > 0) {
      failuresLeft--;
      res.writeHead(503, { "retry-after": "1", "content-type": "text/plain" });
      return res.end("busy, try later");
    }
    json(res, req.method === "POST" ? 201 : 200, { id: "i-1", url: req.url });
  });
  const app = new App();
  process.env.OPENAPI_E2E_TOKEN = TOKEN;
  rt = await testRuntime({ app });
  const settings = {
    document: ECHO_DOCUMENT,
    serverUrl: `${upstream.url}/api`,
    headers: { Authorization: "!ENV OPENAPI_E2E_TOKEN" },
    allowPrivateNetwork: true,
  };
  await rt.connectors.put(as("ADMIN"), { name: "echo", kind: "openapi", settings });
  await rt.connectors.put(as("ADMIN"), {
    name: "claimed",
    kind: "openapi",
    settings,
    tools: { createItem: { retry: { maxAttempts: 3, idempotent: true, backoff: { initialSeconds: 0.05 } } } },
  });
}, 120_000);
afterAll(async () => {
  await rt?.dispose();
  await upstream?.close();
});

describe("an openapi connector through the runtime", () => {
  it("is a built-in kind: a stored document is put and listed without any fetch", async () => {
    const { connector } = await rt.connectors.put(as("ADMIN"), {
      name: "builtin",
      kind: "openapi",
      settings: { document: ECHO_DOCUMENT, serverUrl: "https://api.example/api" },
    });
    expect(connector.tools.map((t) => [t.surfaceName, t.tier])).toEqual([
      ["builtin_getItem", "read"],
      ["builtin_deleteItem", "write"],
      ["builtin_createItem", "write"],
      ["builtin_submitForm", "write"],
      ["builtin_status", "read"],
      ["builtin_text", "read"],
      ["builtin_slow", "read"],
    ]);
    expect(connector.refused).toEqual([]);
  });

  it("refuses a READER the POST operation with the server never reached", async () => {
    const before = upstream.received.length;
    const run = await rt.dispatcher.run({
      tool: "echo_createItem",
      input: { body: { name: "n" } },
      caller: as("READER"),
      door: "runtime",
    });
    expect([run.status, run.errorKind]).toEqual(["FAILED", "PERMISSION_DENIED"]);
    expect(upstream.received.length).toBe(before);
  });

  it("dispatches a GET for a READER, the sealed header resolved upstream and stored nowhere", async () => {
    const run = await rt.dispatcher.run({
      tool: "echo_getItem",
      input: { itemId: "7", tags: ["a"] },
      caller: as("READER"),
      door: "runtime",
    });
    expect(run.status).toBe("SUCCEEDED");
    expect(run.data).toEqual({ id: "i-1", url: "/api/items/7?tags=a" });
    expect(upstream.received.at(-1)!.headers.authorization).toBe(TOKEN);
    expect(upstream.received.at(-1)!.headers["idempotency-key"]).toBeUndefined();
    expect(await databaseText(rt.config.databaseUrl)).not.toContain(TOKEN);
  });

  it("retries a 503 under the ADMIN's idempotency claim, waiting its Retry-After, with the same Idempotency-Key on every attempt", async () => {
    failuresLeft = 2;
    const before = upstream.received.length;
    const run = await rt.dispatcher.run({
      tool: "claimed_createItem",
      input: { body: { name: "n" } },
      caller: as("USER"),
      door: "runtime",
      idempotencyKey: "e2e-key-1",
    });
    expect(run.status).toBe("SUCCEEDED");
    const attempts = upstream.received.slice(before);
    expect(attempts.map((r) => r.headers["idempotency-key"])).toEqual(["e2e-key-1", "e2e-key-1", "e2e-key-1"]);
    expect(run.attempts.map((a) => a.errorKind ?? null)).toEqual(["UNAVAILABLE", "UNAVAILABLE", null]);
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(900);
  }, 30_000);

  it("does not retry the same 503 without a claim: one attempt, failed UNAVAILABLE with the status", async () => {
    failuresLeft = 1;
    const before = upstream.received.length;
    const run = await rt.dispatcher.run({
      tool: "echo_createItem",
      input: { body: { name: "n" } },
      caller: as("USER"),
      door: "runtime",
    });
    expect([run.status, run.errorKind, run.attempts.length]).toEqual(["FAILED", "UNAVAILABLE", 1]);
    expect(run.errorMessage).toContain("HTTP 503");
    expect(upstream.received.slice(before).map((r) => r.headers["idempotency-key"])).toEqual([run.id]);
  });
});
