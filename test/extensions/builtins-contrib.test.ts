import { threadId } from "node:worker_threads";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { until } from "../graphql/support.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

describe("built-in and contrib extensions", () => {
  let rt: TestRuntime;
  let app: App;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;
  let user: string;
  let lookups: number;
  let callbackUrls: string[];

  beforeEach(async () => {
    app = new App();
    lookups = 0;
    callbackUrls = [];
    app.tool({ name: "lookup", description: "Look a word up.", input: z.object({ word: z.string() }) }, ({ word }) => {
      lookups++;
      return { word, length: word.length };
    });
    app.tool({ name: "shout", description: "Upper-case text.", input: z.object({ text: z.string() }) }, ({ text }) =>
      text.toUpperCase(),
    );
    app.tool(
      { name: "vault", description: "Fenced.", input: z.object({ text: z.string() }), tier: "fenced" },
      () => "secret stuff",
    );
    app.tool(
      { name: "save", description: "A write.", input: z.object({ v: z.string() }), tier: "write" },
      ({ v }) => v,
    );
    app.tool({ name: "maybe", description: "Fails on odd numbers.", input: z.object({ n: z.number() }) }, ({ n }) => {
      if (n % 2) throw new Error(`odd ${n}`);
      return n;
    });
    app.tool(
      {
        name: "request_review",
        description: "Ask an external reviewer; they answer at callback_url.",
        input: z.object({ doc: z.string(), callback_url: z.string() }),
      },
      ({ callback_url }) => {
        callbackUrls.push(callback_url);
        return "review requested";
      },
    );
    rt = await testRuntime({ app, config: { demo: false } });
    gql = gqlClient(rt);
    admin = await rt.keys.create("admin", "ADMIN");
    user = await rt.keys.create("user", "USER");
  });
  afterEach(() => rt.dispose());

  const activate = async (document: Record<string, unknown>) => {
    const put = await gql(
      `mutation($i: ManifestInput!) { putManifest(input: $i) { name } }`,
      { i: { name: "m", document: { extensionsModules: ["tai42/contrib"], ...document } } },
      admin,
    );
    expect(put.errors).toBeUndefined();
    expect((await gql(`mutation { activateManifest(name: "m") { name } }`, {}, admin)).errors).toBeUndefined();
  };
  const dispatch = async (tool: string, input: Record<string, unknown>, key = user) =>
    (
      await gql(
        `mutation($t: String!, $i: JSONObject!) { dispatch(input: { tool: $t, input: $i }) { id status data details errorKind errorMessage content { text } } }`,
        { t: tool, i: input },
        key,
      )
    ).data!.dispatch;

  it("should make a stacked [monitor, cache] combo one branch whose calls are cached and traced, and leave the base tool's runs untouched", async () => {
    // monitor is innermost, cache over it: a cache hit answers before the monitor, so
    // only real executions are traced. [cache, monitor] traces every call, hits included.
    await activate({
      extensions: {
        lookup: [
          ["monitor", { name: "cache", config: { ttlSeconds: 60 } }],
          [{ name: "cache", config: { ttlSeconds: 60 } }, "monitor"],
        ],
      },
    });
    const first = await dispatch("lookup_monitor_cache", { word: "abc" });
    const second = await dispatch("lookup_monitor_cache", { word: "abc" });
    expect(first).toMatchObject({ status: "SUCCEEDED", data: { word: "abc", length: 3 } });
    expect(second).toMatchObject({ status: "SUCCEEDED", data: { word: "abc", length: 3 } });
    expect(lookups).toBe(1);
    expect(await rt.db.span.count()).toBe(1);
    expect(await rt.db.cacheEntry.count()).toBe(1);

    await dispatch("lookup_cache_monitor", { word: "xyz" });
    await dispatch("lookup_cache_monitor", { word: "xyz" });
    expect(lookups).toBe(2);
    expect(await rt.db.span.count()).toBe(3);

    await dispatch("lookup", { word: "abc" });
    await dispatch("lookup", { word: "abc" });
    expect(lookups).toBe(4);
    expect(await rt.db.span.count()).toBe(3);
    const spans = await rt.spans.list("lookup");
    expect(spans.every((s) => s.status === "SUCCEEDED" && typeof s.attributes.durationMs === "number")).toBe(true);
  });

  it("should refuse cache on a write-tier tool unless forced", async () => {
    const r = await gql(
      `mutation($i: ManifestInput!) { putManifest(input: $i) { name } }`,
      { i: { name: "m", document: { extensionsModules: ["tai42/contrib"], extensions: { save: ["cache"] } } } },
      admin,
    );
    expect(r.errors![0].extensions!.issues![0].message).toContain(
      'extension "cache" on tool "save": the factory refused: "save" is a write-tier tool',
    );
    await activate({ extensions: { save: [{ name: "cache", config: { force: true } }] } });
    expect((await dispatch("save_cache", { v: "x" })).status).toBe("SUCCEEDED");
  });

  it("should run a chain's next tools through the chokepoint: a USER's chain into a fenced tool fails PERMISSION_DENIED", async () => {
    await activate({
      extensions: {
        lookup: [{ name: "chain", config: { next: ["shout"], inputKey: "text" } }],
        shout: [{ name: "chain", config: { next: ["vault"] } }],
      },
    });
    await rt.dispatcher.run({
      tool: "lookup",
      input: { word: "x" },
      caller: { role: "USER", keyName: "u", keyId: "u" },
      door: "runtime",
    });
    const ok = await dispatch("shout_chain", { text: "hi" }, admin);
    expect(ok).toMatchObject({ status: "SUCCEEDED", data: "secret stuff" });
    const denied = await dispatch("shout_chain", { text: "hi" }, user);
    expect(denied).toMatchObject({ status: "FAILED", errorKind: "PERMISSION_DENIED" });
    expect(denied.errorMessage).toContain('chain step "vault"');
    const child = await rt.db.run.findFirst({ where: { tool: "vault", callerRole: "USER" } });
    expect(child).toMatchObject({ status: "FAILED", errorKind: "PERMISSION_DENIED", door: "extension" });
  });

  it("should batch with bounded concurrency and report per-item results and partial failure", async () => {
    await activate({ extensions: { maybe: [{ name: "batch", config: { concurrency: 2 } }] } });
    const run = await dispatch("maybe_batch", { items: [{ n: 2 }, { n: 3 }, { n: 4 }] });
    expect(run.status).toBe("SUCCEEDED");
    expect(run.data).toEqual({
      results: [
        { ok: true, value: 2 },
        { ok: false, errorKind: "INTERNAL", errorMessage: "the tool failed unexpectedly (Error)" },
        { ok: true, value: 4 },
      ],
      succeeded: 2,
      failed: 1,
    });
    const tool = (await gql(`{ tool(name: "maybe_batch") { inputSchema } }`, {}, user)).data!.tool;
    expect(tool.inputSchema.required).toEqual(["items"]);
    const invalid = await dispatch("maybe_batch", { items: [{ n: "x" }] });
    expect(invalid).toMatchObject({ status: "FAILED", errorKind: "INVALID_INPUT" });
  });

  it("should label a branch and fail a slow call with TIMEOUT", async () => {
    // Never answers on its own: only the timeout's abort ends it.
    app.tool({ name: "slow", description: "Slow.", input: z.object({}) }, async (_i, ctx) => {
      await new Promise((_r, j) => ctx.signal.addEventListener("abort", () => j(ctx.signal.reason)));
      return "late";
    });
    await activate({
      extensions: {
        slow: [{ name: "timeout", config: { seconds: 0.2 } }],
        lookup: [{ name: "label", config: { label: "Dictionary" } }],
      },
    });
    expect(await dispatch("slow_timeout", {})).toMatchObject({ status: "FAILED", errorKind: "TIMEOUT" });
    expect((await gql(`{ tool(name: "lookup_label") { label } }`, {}, user)).data!.tool.label).toBe("Dictionary");
    expect((await dispatch("lookup_label", { word: "a" })).details).toEqual({ label: "Dictionary" });
  });

  describe("ask_external over real HTTP", () => {
    let server: TaiServer;
    beforeEach(async () => {
      server = buildApp(rt);
      await server.start(0, "127.0.0.1");
    });
    afterEach(() => server.stop());

    it("should park, resume with the POSTed payload, refuse a replayed POST, and expire an unanswered one", async () => {
      await activate({
        extensions: {
          request_review: [
            [{ name: "ask_external", config: { answerFormat: { type: "object", required: ["verdict"] } } }],
          ],
        },
      });
      const tool = (await gql(`{ tool(name: "request_review_ask_external") { inputSchema pauses } }`, {}, user)).data!
        .tool;
      expect(Object.keys(tool.inputSchema.properties)).toEqual(["doc"]);
      expect(tool.pauses).toBe(true);

      const parked = await dispatch("request_review_ask_external", { doc: "spec.md" });
      expect(parked.status).toBe("PARKED");
      expect(callbackUrls).toHaveLength(1);
      expect(callbackUrls[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callbacks\/[A-Za-z0-9_-]{43}$/);

      const bad = await fetch(callbackUrls[0], {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ nope: 1 }),
      });
      expect(bad.status).toBe(400);
      const post = await fetch(callbackUrls[0], {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ verdict: "approved" }),
      });
      expect(post.status).toBe(200);
      expect(await post.json()).toEqual({ runId: parked.id, status: "SUCCEEDED" });
      expect(await rt.runs.get(parked.id)).toMatchObject({ status: "SUCCEEDED", data: { verdict: "approved" } });
      const replay = await fetch(callbackUrls[0], { method: "POST", body: JSON.stringify({ verdict: "again" }) });
      expect(replay.status).toBe(409);
      expect(
        (await fetch(callbackUrls[0].replace(/[A-Za-z0-9_-]{43}$/, "x".repeat(43)), { method: "POST", body: "{}" }))
          .status,
      ).toBe(404);

      await gql(
        `mutation($i: ManifestInput!) { putManifest(input: $i, expectedVersion: 1) { name } }`,
        {
          i: {
            name: "m",
            document: {
              extensions: { request_review: [[{ name: "ask_external", config: { expiresInSeconds: 0.2 } }]] },
            },
          },
        },
        admin,
      );
      const waiting = await dispatch("request_review_ask_external", { doc: "late.md" });
      await until("the unanswered interaction to expire", async () => {
        await rt.interactions.expireDue();
        return (await rt.runs.get(waiting.id))?.status === "FAILED";
      });
      expect(await rt.runs.get(waiting.id)).toMatchObject({ status: "FAILED", errorKind: "TIMEOUT" });
      expect((await fetch(callbackUrls[1], { method: "POST", body: "{}" })).status).toBe(409);
    });

    it("should show a spans subscriber over graphql-ws a span open and close for a monitored call", async () => {
      await activate({ extensions: { lookup: ["monitor"] } });
      const url = `ws://127.0.0.1:${(server.server.address() as { port: number }).port}/graphql`;
      const client = createClient({
        url,
        webSocketImpl: WebSocket,
        connectionParams: { authorization: `Bearer ${user}` },
        retryAttempts: 0,
      });
      try {
        const seen: { status: string; finishedAt: string | null }[] = [];
        const done = new Promise<void>((resolve, reject) => {
          const t = setTimeout(() => reject(new Error("no span closed within 10 s")), 10_000);
          client.subscribe<{ spans: { status: string; finishedAt: string | null } }>(
            { query: `subscription { spans(tool: "lookup") { status finishedAt attributes } }` },
            {
              next: (m) => {
                seen.push(m.data!.spans);
                if (m.data!.spans.status !== "RUNNING") {
                  clearTimeout(t);
                  resolve();
                }
              },
              error: reject,
              complete: () => {},
            },
          );
        });
        await until("the spans subscription to listen", () => rt.bus.listenerCount("span") === 1);
        await dispatch("lookup_monitor", { word: "abc" });
        await done;
        expect(seen.map((s) => s.status)).toEqual(["RUNNING", "SUCCEEDED"]);
        expect(seen[0].finishedAt).toBeNull();
        expect(seen[1].finishedAt).not.toBeNull();
      } finally {
        await client.dispose();
      }
    });
  });

  describe("worker_thread backend", () => {
    beforeEach(async () => {
      await rt.dispose();
      rt = await testRuntime({ app, config: { demo: false, modules: ["./test/fixtures/worker-tools.ts"] } });
      await (
        await import("../../src/modules/load-modules.ts")
      ).loadModules((await import("../../src/app.ts")).app, ["./test/fixtures/worker-tools.ts"]);
      gql = gqlClient(rt);
      admin = await rt.keys.create("admin", "ADMIN");
      user = await rt.keys.create("user", "USER");
    });

    it("should run the body off the main thread, keep errors classified, and terminate a body stuck in a CPU loop", async () => {
      await activate({
        extensions: {
          whoami_thread: ["worker_thread"],
          spin_forever: ["worker_thread"],
          fail_in_worker: ["worker_thread"],
        },
      });
      const run = await dispatch("whoami_thread_worker_thread", { n: 21 });
      expect(run.status).toBe("SUCCEEDED");
      expect(run.data.doubled).toBe(42);
      expect(run.data.threadId).not.toBe(threadId);
      expect(await dispatch("fail_in_worker_worker_thread", {})).toMatchObject({
        status: "FAILED",
        errorKind: "UPSTREAM",
        errorMessage: "upstream said no",
      });
      expect(await dispatch("spin_forever_worker_thread", {})).toMatchObject({
        status: "FAILED",
        errorKind: "TIMEOUT",
      });
      // The main thread is still responsive, and so is the server.
      expect((await dispatch("whoami_thread", { n: 1 })).data.threadId).toBe(threadId);
    });

    it("should carry a worker body's on_update to the run log as RUN_PROGRESS, like a body on the main thread", async () => {
      await activate({ extensions: { report_in_worker: ["worker_thread"] } });
      const run = await dispatch("report_in_worker_worker_thread", {});
      expect(run.status).toBe("SUCCEEDED");
      const events = await rt.runs.events({ runId: run.id }, 0);
      expect(events.map((e) => [e.type, e.progress?.message ?? null])).toEqual([
        ["RUN_STARTED", null],
        ["RUN_PROGRESS", "halfway in the worker"],
        ["RUN_FINISHED", null],
      ]);
    });

    it("should refuse to move a tool that no module file registered", async () => {
      const r = await gql(
        `mutation($i: ManifestInput!) { putManifest(input: $i) { name } }`,
        { i: { name: "w", document: { extensions: { lookup: ["worker_thread"] } } } },
        admin,
      );
      expect(r.errors![0].extensions!.issues![0].message).toContain("needs a tool registered by a module file");
    });
  });
});
