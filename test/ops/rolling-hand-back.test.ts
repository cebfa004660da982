import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDb, type Db } from "../../src/db/client.ts";
import { freshDatabase, testRunDir } from "../helpers/databases.ts";
import { until } from "../graphql/support.ts";
import { dispatch, post } from "../runlog/support.ts";
import { startCluster, withHaproxyServices } from "./haproxy-cluster.ts";

/**
 * A rolling restart with runs longer than the shutdown grace (docs/deploy.md §3, docs/run-lifecycle.md §11.6): three
 * `tai serve` over one PostgreSQL and Redis behind haproxy checking `/ready`, every setting at its default
 * (TAI_UNREADY_SECONDS 5, TAI_SHUTDOWN_GRACE_SECONDS 10). Beside a bounded load of short runs, before each SIGTERM a
 * batch of 20-second idempotent runs is dispatched, background and synchronous (with an idempotency key). What the
 * stopping instance still executes at its deadline is handed back and finished by another instance; a synchronous
 * caller answered the handed-back (not final) record re-issues its key and is answered the outcome, as
 * docs/run-lifecycle.md §11.4 and §11.6 make the contract.
 */
const withServices = await withHaproxyServices();

/** Longer than TAI_UNREADY_SECONDS + TAI_SHUTDOWN_GRACE_SECONDS (5 + 10) after the SIGTERM that follows its start. */
const LONG_SECONDS = 20;
const PER_PHASE = { background: 4, sync: 4 };
const FINAL = new Set(["SUCCEEDED", "FAILED", "CANCELLED", "OUTCOME_UNKNOWN", "PARKED"]);
const HANDED_BACK = /^handed back: the instance (\S+) shut down before the run ended$/;

const BACKGROUND = /* GraphQL */ `
  mutation Background($tool: String!, $input: JSONObject!) {
    dispatch(input: { tool: $tool, input: $input, background: true }) {
      id
      status
    }
  }
`;

interface Tally {
  requests: number;
  /** Of them, the short runs' dispatches (one run each). */
  short: number;
  failed: number;
  reissued: number;
  failures: string[];
  /** Re-issued keys answered UNAVAILABLE (retryable): sent again with the same key, as that answer asks. */
  retryableUnavailable: string[];
}

interface LongRun {
  trace: string;
  key?: string;
  id?: string;
  dispatchedAt: number;
  answeredAt?: number;
  answered?: string;
}

/** A synchronous long run: dispatched with its key, re-issued with it while the answer is not final (a hand-back). */
async function syncLong(url: string, run: LongRun, t: Tally): Promise<void> {
  for (let call = 0; call < 10; call++) {
    t.requests++;
    if (call > 0) t.reissued++;
    try {
      const answer = await dispatch(url, "steady", { trace: run.trace, seconds: LONG_SECONDS }, run.key);
      run.id = answer.id;
      if (FINAL.has(answer.status)) {
        run.answered = answer.status;
        run.answeredAt = Date.now();
        return;
      }
    } catch (e) {
      const message = (e as Error).message;
      // A re-issued key's follow that could not read the run in time answers UNAVAILABLE, retryable, "send the request
      // again with the same key" (docs/run-lifecycle.md §8): the client does so, and says how often.
      if (call > 0 && /"code":"UNAVAILABLE"/.test(message) && /"retryable":true/.test(message)) {
        t.retryableUnavailable.push(`sync ${run.key}: ${message.slice(0, 200)}`);
        continue;
      }
      t.failed++;
      t.failures.push(`sync ${run.key}: ${message.slice(0, 300)}`);
    }
  }
}

/** The bounded short load: `n` clients dispatching 50–300 ms runs until `stop()` says so; the slowest answer. */
function shortLoad(url: string, n: number, t: Tally, stop: () => boolean): Promise<number[]> {
  const client = async () => {
    let slowest = 0;
    while (!stop()) {
      t.requests++;
      t.short++;
      const started = Date.now();
      try {
        const seconds = 0.05 + Math.random() * 0.25;
        const run = await dispatch(url, "fenced_probe", { marker: join(testRunDir(), `hb-${randomUUID()}`), seconds });
        if (run.status !== "SUCCEEDED") throw new Error(`answered ${JSON.stringify(run)}`);
      } catch (e) {
        t.failed++;
        t.failures.push(`short: ${(e as Error).message.slice(0, 300)}`);
      }
      slowest = Math.max(slowest, Date.now() - started);
    }
    return slowest;
  };
  return Promise.all(Array.from({ length: n }, client));
}

/** What the run log says of one long run: its final owner, the instances that handed it back, its events. */
async function examine(db: Db, id: string) {
  const run = await db.run.findUniqueOrThrow({ where: { id }, include: { attempts: { orderBy: { number: "asc" } } } });
  const events = await db.runEvent.findMany({ where: { runId: id }, orderBy: { seq: "asc" } });
  const handedBy = run.attempts.flatMap((a) => HANDED_BACK.exec(a.errorMessage ?? "")?.[1] ?? []);
  return { run, events: events.map((e) => e.type), handedBy };
}

/** The pid in an instance id, `<host>/<pid>/<uuid>` (src/cluster/instances.ts). */
const pidOfInstance = (id: string) => Number(id.split("/")[1]);

/** The pids of the trace's lines of `what` ("started", "finished", "aborted"). */
function pidsOf(trace: string, what: string): number[] {
  return readFileSync(trace, "utf8")
    .split("\n")
    .filter((l) => l.endsWith(` ${what}`))
    .map((l) => Number(l.split(" ")[0]));
}

/** The long runs an instance held when it got SIGTERM. */
interface Held {
  instanceId: string;
  ids: string[];
}

/** Dispatches one batch of long runs through haproxy: background ones answered at once, synchronous ones followed. */
async function dispatchBatch(url: string, dir: string, t: Tally, syncCalls: Promise<void>[]): Promise<LongRun[]> {
  const batch: LongRun[] = [];
  for (let b = 0; b < PER_PHASE.background; b++) {
    const run: LongRun = { trace: join(dir, randomUUID()), dispatchedAt: Date.now() };
    t.requests++;
    const answer = await post<{ dispatch: { id: string } }>(url, BACKGROUND, {
      tool: "steady",
      input: { trace: run.trace, seconds: LONG_SECONDS },
    });
    batch.push({ ...run, id: answer.dispatch.id });
  }
  for (let s = 0; s < PER_PHASE.sync; s++) {
    const run: LongRun = { trace: join(dir, randomUUID()), key: randomUUID(), dispatchedAt: Date.now() };
    batch.push(run);
    syncCalls.push(syncLong(url, run, t));
  }
  return batch;
}

/** Waits until every run of `batch` executes, then names those the instance of process `pid` holds. */
async function heldBy(db: Db, batch: LongRun[], pid: number): Promise<Held> {
  const ids = () => batch.flatMap((r) => r.id ?? []);
  const keys = batch.flatMap((r) => r.key ?? []);
  const runningNow = () =>
    db.run.findMany({
      where: { OR: [{ id: { in: ids() } }, { idempotencyKey: { in: keys } }], status: "RUNNING" },
      select: { id: true, instanceId: true },
    });
  await until("the batch of long runs to be executing", async () => (await runningNow()).length === batch.length);
  const running = await runningNow();
  // An instance's id is `<host>/<pid>/<uuid>` (src/cluster/instances.ts).
  const instanceId = running.find((r) => r.instanceId.includes(`/${pid}/`))?.instanceId ?? `?/${pid}/?`;
  return { instanceId, ids: running.filter((r) => r.instanceId === instanceId).map((r) => r.id) };
}

describe.skipIf(!withServices)("a rolling restart with runs longer than the grace", () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("should hand back the runs outliving the grace, finish them on another instance, and fail no request", async () => {
    const database = await freshDatabase("postgres");
    cleanup.push(database.drop);
    const cluster = await startCluster(database.url, 3);
    cleanup.push(cluster.close);
    const { db } = await openDb(database.url, { pool: 2 });
    cleanup.push(() => db.$disconnect());
    const dir = join(testRunDir(), `hand-back-${randomUUID()}`);
    mkdirSync(dir, { recursive: true });

    const t: Tally = { requests: 0, short: 0, failed: 0, reissued: 0, failures: [], retryableUnavailable: [] };
    let stop = false;
    const short = shortLoad(cluster.url, 10, t, () => stop);
    const longs: LongRun[] = [];
    const syncCalls: Promise<void>[] = [];
    /** Per phase: the stopping instance, and the long runs it held when it got SIGTERM. */
    const held: Held[] = [];
    for (let i = 0; i < 3; i++) {
      const batch = await dispatchBatch(cluster.url, dir, t, syncCalls);
      longs.push(...batch);
      held.push(await heldBy(db, batch, cluster.servers[i].process.child.pid!));
      await cluster.restart(i);
    }
    await Promise.all(syncCalls);
    const backgroundIds = longs.flatMap((r) => (r.key ? [] : [r.id!]));
    const ended = () => db.run.count({ where: { id: { in: backgroundIds }, status: { in: [...FINAL] } } });
    await until("every background long run to end", async () => (await ended()) === backgroundIds.length, 90_000);
    stop = true;
    const slowestShort = Math.max(...(await short));

    const examined = new Map<string, Awaited<ReturnType<typeof examine>>>();
    for (const r of longs) examined.set(r.id!, await examine(db, r.id!));
    const handedBack = [...examined.values()].filter((x) => x.handedBy.length > 0);
    const elsewhere = handedBack.filter((x) => !x.handedBy.includes(x.run.instanceId));
    const completion = longs.map((r) => {
      const end = r.key ? r.answeredAt! : examined.get(r.id!)!.run.finishedAt!.getTime();
      return (end - r.dispatchedAt) / 1000;
    });
    const statuses = await db.run.groupBy({ by: ["tool", "status"], _count: true });
    console.log(
      "rolling restart with hand-back:",
      JSON.stringify({
        requests: t.requests,
        failed: t.failed,
        reissued: t.reissued,
        reissuedAfterRetryableUnavailable: t.retryableUnavailable.length,
        longRuns: longs.length,
        heldAtSigterm: held.map((h) => h.ids.length),
        handedBack: handedBack.length,
        handedBackTwice: handedBack.filter((x) => x.handedBy.length > 1).length,
        finishedElsewhere: elsewhere.length,
        alsoEndedOnTheStoppingInstance: handedBack.filter(
          (x) => pidsOf(longs.find((r) => r.id === x.run.id)!.trace, "finished").length > 1,
        ).length,
        maxLongCompletionSeconds: Math.max(...completion),
        slowestShortMs: slowestShort,
        runs: statuses.map((s) => `${s.tool} ${s.status} ${s._count}`),
      }),
    );

    if (t.retryableUnavailable.length) console.log("retryable UNAVAILABLE answers:", t.retryableUnavailable);
    if (t.failures.length) console.log("haproxy's checks:", cluster.checks().join("\n"));
    expect(t.failures).toEqual([]);
    expect(statuses.filter((s) => s.status !== "SUCCEEDED")).toEqual([]);
    // None lost: one run per short dispatch, one per long run (a re-issued key makes none), all SUCCEEDED.
    expect(Object.fromEntries(statuses.map((s) => [s.tool, s._count]))).toEqual({
      fenced_probe: t.short,
      steady: longs.length,
    });
    expect(longs.filter((r) => r.key && r.answered !== "SUCCEEDED")).toEqual([]);
    // Each long run the stopping instance held at its SIGTERM was handed back by it at the grace deadline.
    for (const h of held) for (const id of h.ids) expect(examined.get(id)!.handedBy).toContain(h.instanceId);
    expect(handedBack.length).toBeGreaterThan(0);
    expect(elsewhere.length).toBe(handedBack.length);
    for (const x of handedBack) {
      // One execution per hand-back and the final one, whose body ran to its end in the process of the instance that
      // stored the outcome. A body may also have reached its end on a stopping instance in the instant its run was
      // handed back (its outcome then not stored): the tool claims idempotency, which is what makes that safe.
      expect(x.events.filter((e) => e === "RUN_STARTED")).toHaveLength(x.handedBy.length + 1);
      expect(x.events.at(-1)).toBe("RUN_FINISHED");
      expect(x.events.filter((e) => e === "RUN_FINISHED")).toHaveLength(1);
      const trace = longs.find((r) => r.id === x.run.id)!.trace;
      const handers = x.handedBy.map(pidOfInstance);
      const finalPid = pidOfInstance(x.run.instanceId);
      expect(handers).not.toContain(finalPid);
      expect(pidsOf(trace, "finished").filter((p) => p === finalPid)).toHaveLength(1);
      expect(pidsOf(trace, "finished").filter((p) => p !== finalPid && !handers.includes(p))).toEqual([]);
      expect(pidsOf(trace, "aborted").filter((p) => !handers.includes(p))).toEqual([]);
    }
  }, 240_000);
});
