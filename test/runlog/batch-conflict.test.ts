import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { callerOf } from "../../src/auth/roles.ts";
import type { RunRequest } from "../../src/dispatch/request.ts";
import type { RunRecord } from "../../src/dispatch/run-record.ts";
import { freshDatabase } from "../helpers/databases.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";
import { dispatch, logViolations, readLog, serve, withDb, type ServerProcess } from "./support.ts";

/**
 * Dispatches issued at the same moment share a write batch (group commit): a dispatch
 * whose write conflicts (an idempotency scope another dispatch of the batch, or another
 * instance, already took) must end up with the run holding the scope, and must not fail
 * the other writes of its batch; and a wide burst must not be refused because the
 * database is busy. On SQLite by default, on PostgreSQL with TAI_TEST_DB=postgres.
 */

/** A tool that counts how often its body ran per tag; a `hold` call waits for `release()`. */
function counting() {
  const calls = new Map<string, number>();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const app = new App();
  app.tool(
    {
      name: "work",
      description: "Counts its calls per tag.",
      input: z.object({ tag: z.string(), hold: z.boolean().optional() }),
    },
    async ({ tag, hold }) => {
      calls.set(tag, (calls.get(tag) ?? 0) + 1);
      if (hold) await gate;
      return { tag };
    },
  );
  return { app, calls, release };
}

/** Spreads `inserted` evenly among `base`, so conflicting dispatches sit in the middle of the batch. */
function interleave<T>(base: T[], inserted: T[]): T[] {
  const out = [...base];
  inserted.forEach((x, i) => out.splice(Math.floor(((i + 1) * out.length) / (inserted.length + 1)), 0, x));
  return out;
}

const ids = (runs: RunRecord[]) => runs.map((r) => r.id);

describe("dispatches issued at once on one instance", () => {
  let rt: TestRuntime | undefined;
  afterEach(async () => {
    await rt?.dispose();
    rt = undefined;
  });

  const work = (tag: string, idempotencyKey?: string, caller = as("USER"), hold?: boolean): RunRequest => ({
    tool: "work",
    input: hold ? { tag, hold } : { tag },
    caller,
    door: "runtime",
    ...(idempotencyKey ? { idempotencyKey } : {}),
  });

  it("should give every same-key dispatch issued at once the one run holding the key, and every other dispatch of the batch its own succeeded run", async () => {
    const { app, calls } = counting();
    rt = await testRuntime({ app });
    const other = callerOf("USER", "another-key", "key-another");
    const shared = Array.from({ length: 10 }, () => work("shared", "shared-key"));
    // The same key from another caller is another scope: one run of its own.
    const otherCaller = Array.from({ length: 3 }, () => work("other-caller", "shared-key", other));
    const keyed = Array.from({ length: 20 }, (_, i) => work(`keyed-${i}`, `key-${i}`));
    const plain = Array.from({ length: 20 }, (_, i) => work(`plain-${i}`));
    const batch = interleave([...keyed, ...plain], [...shared, ...otherCaller]);

    // All issued in the same tick.
    const results = await Promise.all(batch.map((req) => rt!.dispatcher.run(req)));
    const tagOf = (req: RunRequest) => (req.input as { tag: string }).tag;
    const of = (wanted: (tag: string) => boolean) => results.filter((_, i) => wanted(tagOf(batch[i])));

    const sharedRuns = of((t) => t === "shared");
    expect(new Set(ids(sharedRuns)).size).toBe(1);
    expect(sharedRuns.map((r) => [r.status, r.data])).toEqual(sharedRuns.map(() => ["SUCCEEDED", { tag: "shared" }]));
    const otherRuns = of((t) => t === "other-caller");
    expect(new Set(ids(otherRuns)).size).toBe(1);
    expect(otherRuns[0]).toMatchObject({ status: "SUCCEEDED", data: { tag: "other-caller" } });
    expect(otherRuns[0].id).not.toBe(sharedRuns[0].id);

    // Every other dispatch: its own run, succeeded with its own output.
    const own = batch
      .map((req, i) => ({ tag: tagOf(req), run: results[i] }))
      .filter((p) => /^(keyed|plain)-/.test(p.tag));
    expect(own.filter((p) => p.run.status !== "SUCCEEDED" || (p.run.data as { tag?: string }).tag !== p.tag)).toEqual(
      [],
    );
    expect(new Set([...own.map((p) => p.run.id), sharedRuns[0].id, otherRuns[0].id]).size).toBe(42);

    // Each body ran once: the conflicting dispatches never ran it again.
    expect([...calls.values()].every((n) => n === 1)).toBe(true);
    expect(calls.size).toBe(42);

    // Exactly one stored run holds the key: a later re-issue returns it without running the body.
    const again = await rt.dispatcher.run(work("shared", "shared-key"));
    expect(again).toEqual(sharedRuns[0]);
    expect(calls.get("shared")).toBe(1);

    const { runs, events } = await readLog(rt.db);
    expect(runs.map((r) => r.id).sort()).toEqual([...new Set(ids(results))].sort());
    expect(runs.filter((r) => (r.input as { tag?: string }).tag === "shared")).toHaveLength(1);
    expect(logViolations(runs, events)).toEqual([]);
    expect(events.map((e) => e.type).sort()).toEqual([
      ...runs.map(() => "RUN_FINISHED"),
      ...runs.map(() => "RUN_STARTED"),
    ]);
  });

  it("should answer each of 200 dispatches issued at once with its own succeeded run, none refused because the database is busy", async () => {
    const { app, calls } = counting();
    rt = await testRuntime({ app });
    const settled = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) =>
        rt!.dispatcher.run(work(`burst-${i}`, i % 3 ? undefined : `burst-key-${i}`)),
      ),
    );

    const refused = settled.flatMap((s) => (s.status === "rejected" ? [String(s.reason).split("\n").at(-1)] : []));
    expect({ refused: refused.length, first: refused[0] }).toEqual({ refused: 0, first: undefined });
    const runs = settled.map((s) => (s as PromiseFulfilledResult<RunRecord>).value);
    expect(runs.filter((r) => r.status !== "SUCCEEDED")).toEqual([]);
    expect(new Set(ids(runs)).size).toBe(200);
    expect(calls.size).toBe(200);

    const log = await readLog(rt.db);
    expect(log.runs).toHaveLength(200);
    expect(logViolations(log.runs, log.events)).toEqual([]);
  });

  it("should succeed the other dispatches of a batch while its same-key dispatches wait for the run still holding the key", async () => {
    const { app, calls, release } = counting();
    rt = await testRuntime({ app });
    const holder = rt.dispatcher.run(work("shared", "held-key", as("USER"), true));
    await until(
      "the holding run to be RUNNING",
      async () => (await rt!.runs.list({ tool: "work", status: "RUNNING" }, 1)).length === 1,
    );

    const waiting = Array.from({ length: 10 }, () => work("shared", "held-key"));
    const others = Array.from({ length: 20 }, (_, i) => work(`other-${i}`, i % 2 ? `own-${i}` : undefined));
    const batch = interleave(others, waiting);
    let settled = 0;
    const promises = batch.map((req) => rt!.dispatcher.run(req).finally(() => settled++));
    const sameKey = promises.filter((_, i) => batch[i].idempotencyKey === "held-key");
    const rest = promises.filter((_, i) => batch[i].idempotencyKey !== "held-key");

    const finished = await Promise.all(rest);
    expect(finished.map((r) => r.status)).toEqual(finished.map(() => "SUCCEEDED"));
    expect(new Set(ids(finished)).size).toBe(20);
    // The holder cannot end before release(): no same-key dispatch has settled yet.
    expect(settled).toBe(20);

    release();
    const first = await holder;
    const resolved = await Promise.all(sameKey);
    expect(first).toMatchObject({ status: "SUCCEEDED", data: { tag: "shared" } });
    expect(resolved).toEqual(resolved.map(() => first));
    expect(calls.get("shared")).toBe(1);

    const { runs, events } = await readLog(rt.db);
    expect(runs).toHaveLength(21);
    expect(logViolations(runs, events)).toEqual([]);
  });
});

describe("dispatches issued at once on two server processes", () => {
  const servers: ServerProcess[] = [];
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.process.stop("SIGKILL");
    await drop?.();
    drop = undefined;
  });

  it("should resolve same-key dispatches issued at once on two instances to one run, and succeed every other dispatch of both batches", async () => {
    const db = await freshDatabase();
    drop = db.drop;
    const [a, b] = await Promise.all([serve(db.url), serve(db.url)]);
    servers.push(a, b);

    // Each instance gets 8 same-key dispatches among 20 others; all 56 are sent at once.
    const requests = [a, b].flatMap((s, n) =>
      interleave(
        Array.from({ length: 20 }, (_, i) => ({
          url: s.url,
          tag: `own-${n}-${i}`,
          key: i % 2 ? `key-${n}-${i}` : undefined,
        })),
        Array.from({ length: 8 }, () => ({ url: s.url, tag: "shared", key: "cross-instance" })),
      ),
    );
    const results = await Promise.all(requests.map((q) => dispatch(q.url, "echo", { text: q.tag }, q.key)));

    const shared = results.filter((_, i) => requests[i].key === "cross-instance");
    const own = results.filter((_, i) => requests[i].key !== "cross-instance");
    expect(new Set(shared.map((r) => r.id)).size).toBe(1);
    expect(shared.map((r) => r.status)).toEqual(shared.map(() => "SUCCEEDED"));
    expect(own.filter((r) => r.status !== "SUCCEEDED")).toEqual([]);
    expect(new Set([...own.map((r) => r.id), shared[0].id]).size).toBe(41);

    const { runs, events } = await withDb(db.url, readLog);
    expect(runs.map((r) => r.id).sort()).toEqual([...own.map((r) => r.id), shared[0].id].sort());
    expect(logViolations(runs, events)).toEqual([]);
    expect(events).toHaveLength(2 * 41);
  }, 180_000);
});
