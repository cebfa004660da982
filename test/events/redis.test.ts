import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import type { RunEventRecord, RunRecord } from "../../src/dispatch/run-record.ts";
import { replayThenLive } from "../../src/dispatch/run-events.ts";
import { freshDatabase, redisTestUrl, requirePostgres, requireRedis } from "../helpers/databases.ts";
import { as, testRuntime } from "../helpers/runtime.ts";
import { tcpLink, through } from "../helpers/tcp-link.ts";
import { redisSubscribed } from "../helpers/redis.ts";

/**
 * Several instances sharing one PostgreSQL database and one Redis. Under CI=true an
 * unreachable PostgreSQL or Redis fails this file; elsewhere it is skipped.
 */
const ready = (await requirePostgres()) && (await requireRedis());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves with `p`, or rejects naming `what` after `ms`. */
function within<T>(what: string, ms: number, p: Promise<T>): Promise<T> {
  let t: ReturnType<typeof setTimeout>;
  return Promise.race([
    p,
    new Promise<never>(
      (_, reject) => (t = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms)),
    ),
  ]).finally(() => clearTimeout(t));
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null>, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null) return v;
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(25);
  }
}

/** Tools whose bodies count their calls across both instances. */
function tools(counter: { calls: number }, gate?: Promise<void>): App {
  const app = new App();
  app.tool(
    { name: "add", description: "Adds two numbers.", input: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => {
      counter.calls++;
      await gate;
      return { sum: a + b };
    },
  );
  app.tool({ name: "wait_for_cancel", description: "Runs until aborted.", input: z.object({}) }, (_input, ctx) => {
    counter.calls++;
    return new Promise((_, reject) =>
      ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }),
    );
  });
  return app;
}

describe.skipIf(!ready)("instances sharing PostgreSQL and Redis", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  /** Two runtimes on one fresh PostgreSQL database and one Redis, on channels of their own. */
  async function pair(options: { redisUrl?: string; gate?: Promise<void> } = {}) {
    const db = await freshDatabase("postgres");
    cleanup.push(db.drop);
    const counter = { calls: 0 };
    const config = { redisUrl: options.redisUrl ?? redisTestUrl(), redisPrefix: `tai42-test-${randomUUID()}:` };
    const open = async () => {
      const rt = await testRuntime({ databaseUrl: db.url, config, app: tools(counter, options.gate) });
      cleanup.push(() => within("closing a runtime", 15_000, rt.dispose()));
      return rt;
    };
    const a = await open();
    const b = await open();
    return { a, b, counter, prefix: config.redisPrefix };
  }

  /** Waits until both instances' Redis subscriptions for `topics` are in place (SUBSCRIBE is asynchronous). */
  const subscribed = (prefix: string, topics: string[], count = 2) => redisSubscribed(prefix, topics, count);

  describe("events", () => {
    it("should deliver a run dispatched on one instance to the other instance's bus", async () => {
      const { a, b, prefix } = await pair();
      const seen: RunEventRecord[] = [];
      const controller = new AbortController();
      const live = b.bus.subscribe("runEvent", { signal: controller.signal, filter: (e) => e.tool === "add" });
      const collected = (async () => {
        for await (const e of live) {
          seen.push(e);
          if (e.type === "RUN_FINISHED") return;
        }
      })();
      await subscribed(prefix, ["runEvent"], 1);

      const run = await a.dispatcher.run({ tool: "add", input: { a: 2, b: 3 }, caller: as("USER"), door: "runtime" });
      await within("B to see RUN_FINISHED over Redis", 10_000, collected);
      controller.abort();

      expect(seen.map((e) => [e.type, e.runId])).toEqual([
        ["RUN_STARTED", run.id],
        ["RUN_FINISHED", run.id],
      ]);
      // JSON over Redis: the payload is the stored record, times as ISO strings.
      expect(seen[1].run).toEqual(run);
      const stored = await b.runs.events({ runId: run.id }, 0);
      expect(seen.map((e) => e.seq)).toEqual(stored.map((e) => e.seq));
    });

    it("should replay on one instance the events of a run dispatched on the other, then continue live", async () => {
      const { a, b, prefix } = await pair();
      const first = await a.dispatcher.run({ tool: "add", input: { a: 1, b: 1 }, caller: as("USER"), door: "runtime" });
      const controller = new AbortController();
      const stream = replayThenLive(b, { tool: "add" }, 0, controller.signal, as("USER"));
      const got: RunEventRecord[] = [];
      const reader = (async () => {
        for await (const e of stream) {
          got.push(e);
          if (got.length === 4) return;
        }
      })();
      await waitFor("the replayed events", async () => (got.length >= 2 ? true : undefined));
      await subscribed(prefix, ["runEvent"], 1);
      const second = await a.dispatcher.run({
        tool: "add",
        input: { a: 2, b: 2 },
        caller: as("USER"),
        door: "runtime",
      });
      await within("the live events after the replay", 10_000, reader);
      controller.abort();

      expect(got.map((e) => [e.type, e.runId])).toEqual([
        ["RUN_STARTED", first.id],
        ["RUN_FINISHED", first.id],
        ["RUN_STARTED", second.id],
        ["RUN_FINISHED", second.id],
      ]);
      for (let i = 1; i < got.length; i++) expect(got[i].seq).toBeGreaterThan(got[i - 1].seq);
    });
  });

  describe("cancellation", () => {
    it("should cancel from one instance a run executing on the other", async () => {
      const { a, b, counter, prefix } = await pair();
      // Each dispatcher listens for cancellations from the start.
      await subscribed(prefix, ["runCancel"]);
      const pending = a.dispatcher.run({ tool: "wait_for_cancel", input: {}, caller: as("USER"), door: "runtime" });
      const running = await waitFor(
        "the run to be RUNNING",
        async () => (await b.runs.list({ tool: "wait_for_cancel", status: "RUNNING" }, 1))[0],
      );

      const cancelled = await within("cancelRun issued on B", 10_000, b.dispatcher.cancel(running.id));
      expect(cancelled).toMatchObject({ id: running.id, status: "CANCELLED", errorKind: "CANCELLED" });
      expect(await within("the run on A to end", 10_000, pending)).toMatchObject({
        id: running.id,
        status: "CANCELLED",
      });
      expect((await b.runs.get(running.id))?.attempts).toHaveLength(1);
      expect(counter.calls).toBe(1);
    });
  });

  describe("cancellation through an outage", () => {
    it("should still cancel a run on the other instance when the first cancel message was lost", async () => {
      const proxy = await redisProxy();
      cleanup.push(proxy.close);
      const db = await freshDatabase("postgres");
      cleanup.push(db.drop);
      const counter = { calls: 0 };
      const prefix = `tai42-test-${randomUUID()}:`;
      const open = async (redisUrl: string) => {
        const rt = await testRuntime({
          databaseUrl: db.url,
          config: { redisUrl, redisPrefix: prefix },
          app: tools(counter),
        });
        cleanup.push(() => within("closing a runtime", 15_000, rt.dispose()));
        return rt;
      };
      const a = await open(proxy.url); // runs the tool, behind the proxy
      const b = await open(redisTestUrl());
      await subscribed(prefix, ["runCancel"]);
      const pending = a.dispatcher.run({ tool: "wait_for_cancel", input: {}, caller: as("USER"), door: "runtime" });
      const running = await waitFor(
        "the run to be RUNNING",
        async () => (await b.runs.list({ tool: "wait_for_cancel", status: "RUNNING" }, 1))[0],
      );

      proxy.cut(); // A stops hearing Redis: B's first cancel message is lost
      const cancelling = b.dispatcher.cancel(running.id);
      await sleep(300);
      proxy.restore();
      expect(await within("the cancel to reach A once Redis is back", 15_000, cancelling)).toMatchObject({
        status: "CANCELLED",
        errorKind: "CANCELLED",
      });
      expect((await pending).status).toBe("CANCELLED");
    });
  });

  describe("idempotency", () => {
    it("should return the first instance's run when the same key is re-issued on the other", async () => {
      const { a, b, counter } = await pair();
      const first = await a.dispatcher.run({
        tool: "add",
        input: { a: 4, b: 5 },
        caller: as("USER"),
        door: "runtime",
        idempotencyKey: "invoice-7",
      });
      const again = await b.dispatcher.run({
        tool: "add",
        input: { a: 4, b: 5 },
        caller: as("USER"),
        door: "runtime",
        idempotencyKey: "invoice-7",
      });
      expect(again).toEqual(first);
      expect(counter.calls).toBe(1);
    });

    it("should make the other instance wait for the first run still in flight, then return it", async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const { a, b, counter } = await pair({ gate });
      const first = a.dispatcher.run({
        tool: "add",
        input: { a: 1, b: 2 },
        caller: as("USER"),
        door: "runtime",
        idempotencyKey: "once",
      });
      await waitFor("the first run to be stored", async () => (await b.runs.list({ tool: "add" }, 1))[0]);
      const second = b.dispatcher.run({
        tool: "add",
        input: { a: 1, b: 2 },
        caller: as("USER"),
        door: "runtime",
        idempotencyKey: "once",
      });
      await sleep(100);
      release();
      const [ra, rb] = await within("both dispatches", 10_000, Promise.all([first, second]));
      expect(rb.id).toBe(ra.id);
      expect(rb).toMatchObject({ status: "SUCCEEDED", data: { sum: 3 } });
      expect(counter.calls).toBe(1);
    });
  });

  describe("a Redis outage", () => {
    it("should still finish and store runs when Redis cannot be reached at all", async () => {
      const { a, b, counter } = await pair({ redisUrl: "redis://127.0.0.1:6390" });
      const runs = await within(
        "dispatches without Redis",
        15_000,
        Promise.all([
          a.dispatcher.run({ tool: "add", input: { a: 1, b: 1 }, caller: as("USER"), door: "runtime" }),
          b.dispatcher.run({
            tool: "add",
            input: { a: 2, b: 2 },
            caller: as("USER"),
            door: "runtime",
            idempotencyKey: "k",
          }),
        ]),
      );
      expect(runs.map((r) => r.status)).toEqual(["SUCCEEDED", "SUCCEEDED"]);
      for (const r of runs) expect((await a.runs.get(r.id))?.status).toBe("SUCCEEDED");
      expect((await b.runs.events({ runId: runs[0].id }, 0)).map((e) => e.type)).toEqual([
        "RUN_STARTED",
        "RUN_FINISHED",
      ]);
      // The idempotent re-issue on the other instance falls back to the database.
      const again = await within(
        "an idempotent re-issue without Redis",
        10_000,
        a.dispatcher.run({
          tool: "add",
          input: { a: 2, b: 2 },
          caller: as("USER"),
          door: "runtime",
          idempotencyKey: "k",
        }),
      );
      expect(again.id).toBe(runs[1].id);
      expect(counter.calls).toBe(2);
      expect(a.logLines.some((l) => l.includes("redis is unreachable"))).toBe(true);
    });

    it("should keep finishing and storing runs while Redis goes away mid-flight, and deliver events again once it is back", async () => {
      const proxy = await redisProxy();
      cleanup.push(proxy.close);
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const { a, b, prefix } = await pair({ redisUrl: proxy.url, gate });
      await subscribed(prefix, ["runCancel"]);

      const inFlight = a.dispatcher.run({ tool: "add", input: { a: 3, b: 4 }, caller: as("USER"), door: "runtime" });
      await waitFor("the run to be stored", async () => (await b.runs.list({ tool: "add" }, 1))[0]);
      proxy.cut();
      release();
      const run: RunRecord = await within("a run finishing during the outage", 10_000, inFlight);
      expect(run).toMatchObject({ status: "SUCCEEDED", data: { sum: 7 } });
      expect((await b.runs.get(run.id))?.status).toBe("SUCCEEDED");
      // Replay covers what Redis dropped.
      expect((await b.runs.events({ runId: run.id }, 0)).map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);

      proxy.restore();
      const seen = new Promise<RunEventRecord>((resolve) => {
        const off = b.bus.listen("runEvent", (e) => {
          if (e.type === "RUN_FINISHED") {
            off();
            resolve(e);
          }
        });
      });
      // ioredis reconnects and subscribes again on its own.
      await subscribed(prefix, ["runCancel"]);
      await subscribed(prefix, ["runEvent"], 1);
      const after = await a.dispatcher.run({ tool: "add", input: { a: 1, b: 0 }, caller: as("USER"), door: "runtime" });
      expect((await within("events over Redis after it returned", 15_000, seen)).runId).toBe(after.id);
    });
  });
});

/**
 * A TCP proxy in front of the test Redis: `cut()` drops every connection and refuses new
 * ones (an outage), `restore()` accepts them again.
 */
async function redisProxy(): Promise<{ url: string; cut(): void; restore(): void; close(): Promise<void> }> {
  const target = new URL(redisTestUrl());
  const link = await tcpLink(target.hostname, Number(target.port || 6379));
  return { url: through(redisTestUrl(), link), cut: link.cut, restore: link.restore, close: link.close };
}
