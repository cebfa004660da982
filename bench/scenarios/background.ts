import { App } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { createRuntime, type Runtime } from "../../src/runtime.ts";
import type { ScratchDatabases } from "../lib/databases.ts";
import { percentile, round } from "../lib/percentiles.ts";
import { RunTracker } from "../lib/run-tracker.ts";
import { ECHO_TEXT } from "../lib/targets.ts";
import type { BenchSettings } from "../settings.ts";

/**
 * Background dispatch (issue 27, docs/run-lifecycle.md §11) against synchronous dispatch, in
 * one run, on SQLite (the embedded queue) and PostgreSQL (pg-boss): `runs` dispatches of
 * `echo` through the in-process chokepoint (`rt.dispatcher.run`, no HTTP), `concurrency`
 * callers at once, synchronous and background blocks interleaved over `rounds`. Synchronous:
 * runs/s until every call answered SUCCEEDED. Background: enqueue throughput (dispatch calls/s
 * until every call answered QUEUED) and completion throughput (runs/s from the first call to
 * the last RUN_FINISHED, every run SUCCEEDED). Queue latency is enqueue → start per run: the
 * RUN_QUEUED and RUN_STARTED events as this process saw them on the bus, and the same from
 * the stored events' `at` (millisecond resolution); under the blocks' load (a backlog when the
 * workers fall behind the callers) and with an idle queue (`idleRuns` runs one at a time).
 */
export interface BackgroundDbResult {
  synchronous: { runsPerSecond: number; rounds: number[] };
  background: {
    enqueuePerSecond: number;
    completionPerSecond: number;
    rounds: { enqueuePerSecond: number; completionPerSecond: number }[];
  };
  /** Enqueue → RUN_STARTED, ms, over every background run of every round. */
  queueLatencyMs: QueueLatency;
  /** The same with an idle queue: `idleRuns` background runs one at a time, each awaited before the next. */
  idleQueueLatencyMs: QueueLatency;
  /** The queue engine of this database (src/queue/open-queue.ts): embedded on SQLite, pg-boss on PostgreSQL. */
  engine: string;
  ratios: { "completion/synchronous": number; "enqueue/synchronous": number };
}

/** Enqueue → start, ms: as this process saw the events on the bus, and from the stored events' `at`. */
export interface QueueLatency {
  p50: number;
  p99: number;
  max: number;
  storedP50: number;
  storedP99: number;
}

export interface BackgroundResult {
  settings: BenchSettings["background"];
  databases: Partial<Record<"sqlite" | "postgres", BackgroundDbResult>>;
}

const CALLER = { role: "USER", keyName: "bench", keyId: "bench" } as const;
const SYNC_TEXT = `${ECHO_TEXT} (synchronous)`;
const BACKGROUND_TEXT = `${ECHO_TEXT} (background)`;

function runtimeOver(url: string, concurrency: number): Promise<Runtime> {
  return createRuntime({
    config: { ...loadConfig({}), databaseUrl: url, queueConcurrency: concurrency },
    app: new App(),
    loadModules: false,
    log: createLogger({}, () => {}),
  });
}

/** `n` calls of `one`, `concurrency` at a time; resolves with the seconds they took. */
async function callers(n: number, concurrency: number, one: () => Promise<void>): Promise<number> {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(n, concurrency) }, async () => {
      while (next++ < n) await one();
    }),
  );
  return (performance.now() - t) / 1000;
}

function dispatchEcho(rt: Runtime, text: string, background: boolean) {
  return rt.dispatcher.run({ tool: "echo", input: { text }, caller: CALLER, door: "runtime", background });
}

async function synchronousBlock(rt: Runtime, n: number, concurrency: number): Promise<number> {
  const seconds = await callers(n, concurrency, async () => {
    const run = await dispatchEcho(rt, SYNC_TEXT, false);
    if (run.status !== "SUCCEEDED") throw new Error(`bench: echo ended ${run.status}: ${run.errorMessage}`);
  });
  return n / seconds;
}

/** One background block: `n` calls answered QUEUED, then every run SUCCEEDED. */
async function backgroundBlock(
  rt: Runtime,
  tracker: RunTracker,
  s: BenchSettings["background"],
  ids: string[],
): Promise<{ enqueuePerSecond: number; completionPerSecond: number }> {
  const target = tracker.finishedCount + s.runs;
  const t = performance.now();
  const enqueueSeconds = await callers(s.runs, s.concurrency, async () => {
    const run = await dispatchEcho(rt, BACKGROUND_TEXT, true);
    if (run.status !== "QUEUED" && run.status !== "RUNNING" && run.status !== "SUCCEEDED")
      throw new Error(`bench: a background echo was answered ${run.status}: ${run.errorMessage}`);
    ids.push(run.id);
  });
  await tracker.until(target, s.timeoutSeconds * 1000);
  const completionSeconds = (performance.now() - t) / 1000;
  return { enqueuePerSecond: s.runs / enqueueSeconds, completionPerSecond: s.runs / completionSeconds };
}

/** Enqueue → start of each run, from the stored RUN_QUEUED and RUN_STARTED events (ms). */
async function storedLatencies(rt: Runtime, ids: string[]): Promise<number[]> {
  const at = new Map<string, { queued?: number; started?: number }>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await rt.db.runEvent.findMany({
      where: { runId: { in: ids.slice(i, i + 500) }, type: { in: ["RUN_QUEUED", "RUN_STARTED"] } },
      select: { runId: true, type: true, at: true },
    });
    for (const r of rows) {
      const e = at.get(r.runId) ?? {};
      at.set(r.runId, e);
      if (r.type === "RUN_QUEUED") e.queued = r.at.getTime();
      else e.started ??= r.at.getTime();
    }
  }
  return [...at.values()]
    .filter((e) => e.queued !== undefined && e.started !== undefined)
    .map((e) => e.started! - e.queued!);
}

async function latencies(rt: Runtime, tracker: RunTracker, ids: string[]): Promise<QueueLatency> {
  const stored = await storedLatencies(rt, ids);
  const seen: number[] = [];
  for (const id of ids) {
    const t = tracker.runs.get(id);
    if (t?.status !== "SUCCEEDED") throw new Error(`bench: background run ${id} ended ${t?.status ?? "unseen"}`);
    if (t.queued !== undefined && t.started !== undefined) seen.push(t.started - t.queued);
  }
  if (seen.length !== ids.length) throw new Error(`bench: ${ids.length - seen.length} runs lacked RUN_QUEUED/STARTED`);
  return {
    p50: round(percentile(seen, 50), 3),
    p99: round(percentile(seen, 99), 3),
    max: round(percentile(seen, 100), 3),
    storedP50: round(percentile(stored, 50), 1),
    storedP99: round(percentile(stored, 99), 1),
  };
}

async function measureOn(url: string, s: BenchSettings["background"]): Promise<BackgroundDbResult> {
  const rt = await runtimeOver(url, s.concurrency);
  const tracker = new RunTracker(rt.bus, BACKGROUND_TEXT);
  try {
    // Warm-up: both paths once (the queue engine's first job, prepared statements, JIT).
    await synchronousBlock(rt, s.warmupRuns, s.concurrency);
    await backgroundBlock(rt, tracker, { ...s, runs: s.warmupRuns }, []);
    const sync: number[] = [];
    const bg: { enqueuePerSecond: number; completionPerSecond: number }[] = [];
    const ids: string[] = [];
    for (let r = 0; r < s.rounds; r++) {
      sync.push(await synchronousBlock(rt, s.runs, s.concurrency));
      bg.push(await backgroundBlock(rt, tracker, s, ids));
    }
    const idleIds: string[] = [];
    for (let i = 0; i < s.idleRuns; i++) await backgroundBlock(rt, tracker, { ...s, runs: 1, concurrency: 1 }, idleIds);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const syncRps = mean(sync);
    const enqueue = mean(bg.map((b) => b.enqueuePerSecond));
    const completion = mean(bg.map((b) => b.completionPerSecond));
    return {
      synchronous: { runsPerSecond: round(syncRps, 0), rounds: sync.map((x) => round(x, 0)) },
      background: {
        enqueuePerSecond: round(enqueue, 0),
        completionPerSecond: round(completion, 0),
        rounds: bg.map((b) => ({
          enqueuePerSecond: round(b.enqueuePerSecond, 0),
          completionPerSecond: round(b.completionPerSecond, 0),
        })),
      },
      queueLatencyMs: await latencies(rt, tracker, ids),
      idleQueueLatencyMs: await latencies(rt, tracker, idleIds),
      engine: url.startsWith("file:") ? "embedded" : "pg-boss",
      ratios: {
        "completion/synchronous": round(completion / syncRps),
        "enqueue/synchronous": round(enqueue / syncRps),
      },
    };
  } finally {
    tracker.close();
    await rt.close();
  }
}

export async function backgroundScenario(
  settings: BenchSettings,
  dbs: ScratchDatabases,
  log: (line: string) => void,
): Promise<BackgroundResult> {
  const s = settings.background;
  const result: BackgroundResult = { settings: s, databases: {} };
  for (const kind of dbs.hasPostgres ? (["sqlite", "postgres"] as const) : (["sqlite"] as const)) {
    const db = await dbs.create(kind);
    try {
      const r = (result.databases[kind] = await measureOn(db.url, s));
      const q = r.queueLatencyMs;
      log(
        `  ${kind} (${r.engine}), ${s.runs} runs × ${s.rounds} rounds, ${s.concurrency} at once: synchronous ${r.synchronous.runsPerSecond} runs/s; background enqueue ${r.background.enqueuePerSecond} calls/s, completion ${r.background.completionPerSecond} runs/s (×${r.ratios["completion/synchronous"]}); queue latency p50 ${q.p50} ms, p99 ${q.p99} ms; idle queue p50 ${r.idleQueueLatencyMs.p50} ms, p99 ${r.idleQueueLatencyMs.p99} ms`,
      );
    } finally {
      await db.drop();
    }
  }
  return result;
}
