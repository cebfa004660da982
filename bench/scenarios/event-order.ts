import { randomUUID } from "node:crypto";
import pg from "pg";
import type { Child } from "../lib/child.ts";
import type { ScratchDatabases, ScratchDb } from "../lib/databases.ts";
import { figuresLine, measureSplit, type SplitFigures } from "../lib/load.ts";
import { round } from "../lib/percentiles.ts";
import { LockSampler, type LockWaitFigures } from "../lib/pg-locks.ts";
import { waitFor } from "../lib/send.ts";
import { startTai42, type Tai42Child } from "../lib/servers.ts";
import { checkTarget, tai42Target } from "../lib/targets.ts";
import type { BenchSettings } from "../settings.ts";

/**
 * Scenario `event-order`: the run event log's deployment-wide ceiling with 1, 2 and 3 instances on one PostgreSQL
 * database (docs/run-lifecycle.md §9 "Throughput ceiling"). The instances share this machine's cores, so throughput
 * itself cannot grow here; what is measured is how much of the deployment one step serialises, and the ceiling that
 * step sets, for two designs in the same run:
 * - `exclusive` (the baseline, every version before the settled order): writers take the event-log lock exclusively
 *   from their events' insert to their commit. Its hold time per batch is the share of samples in which it was held
 *   times the window, over the window's batches (transactions that wrote events, told apart by `xmin`); the ceiling
 *   is the jobs of a batch over that hold time, in runs (a run writes `eventsPerRun` events).
 * - `shared` (now): writers register with a shared lock and never wait on one another; the one step every event of
 *   every instance still passes one at a time is the sequence's `nextval`, timed here on the same server. The
 *   ceiling is one over its cost, in runs.
 */
export interface EventOrderConfig {
  instances: number;
  load: SplitFigures;
  lockWait: LockWaitFigures;
  /** Events and the transactions (batches) that wrote them, during the measured window. */
  events: number;
  batches: number;
  eventsPerBatch: number;
  eventsPerRun: number;
  /** exclusive: the measured hold per batch (ms). */
  holdMsPerBatch?: number;
  /** Runs per second the serialised step allows, however many instances are added. */
  ceilingRunsPerSecond: number;
}

export interface EventOrderResult {
  settings: BenchSettings["eventOrder"];
  /** The cost of drawing one `seq` (µs), measured on the scratch database. */
  nextvalMicros: number;
  exclusive: EventOrderConfig[];
  shared: EventOrderConfig[];
  ratios: {
    /** shared ceiling over exclusive ceiling, at 3 instances. */
    "shared/exclusive ceiling @3": number;
    /** shared ceiling at 3 instances over the 1,750 runs/s the issue measured for the old design. */
    "shared ceiling @3 / 1750": number;
    /** each design's ceiling at 3 instances over its own at 1. */
    "exclusive 3/1": number;
    "shared 3/1": number;
  };
}

/** The cost of one `nextval` on the log's sequence (µs), the best of a few timed draws of 100,000 values. */
async function nextvalMicros(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const seq = (await c.query<{ s: string }>(`SELECT pg_get_serial_sequence('"RunEvent"', 'seq') AS s`)).rows[0].s;
    let best = Infinity;
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await c.query(`SELECT count(nextval($1)) FROM generate_series(1, 100000)`, [seq]);
      best = Math.min(best, ((performance.now() - t) * 1000) / 100_000);
    }
    return round(best, 3);
  } finally {
    await c.end();
  }
}

/** Events, batches and runs of the log with `after < seq ≤ upTo`. */
async function logFigures(probe: pg.Client, after: number, upTo: number) {
  const { rows } = await probe.query<{ events: number; batches: number; runs: number }>(
    `SELECT count(*)::int AS events, count(DISTINCT xmin::text)::int AS batches, count(DISTINCT "runId")::int AS runs
     FROM "RunEvent" WHERE seq > $1 AND seq <= $2`,
    [after, upTo],
  );
  return rows[0];
}

const lastSeq = async (probe: pg.Client) =>
  (await probe.query<{ s: number }>(`SELECT coalesce(max(seq), 0)::int AS s FROM "RunEvent"`)).rows[0].s;

/** One design: three instances on a fresh database, loaded through 1, 2 and 3 of them in turn. */
async function design(
  mode: "exclusive" | "shared",
  settings: BenchSettings,
  dbs: ScratchDatabases,
  log: (line: string) => void,
): Promise<{ configs: EventOrderConfig[]; nextvalMicros: number }> {
  const s = settings.eventOrder;
  const started: Child[] = [];
  let db: ScratchDb | null = null;
  let probe: pg.Client | null = null;
  try {
    db = await dbs.create("postgres");
    const prefix = `tai42-bench-order-${process.pid}-${randomUUID().slice(0, 8)}:`;
    const instances: Tai42Child[] = [];
    for (const label of ["A", "B", "C"]) {
      const env = mode === "exclusive" ? { TAI_BENCH_EVENT_LOCK: "exclusive" } : {};
      const c = await startTai42(dbs, "postgres", { db, redis: { url: settings.redisUrl, prefix }, label, env });
      started.push(c);
      instances.push(c);
    }
    const targets = instances.map((c) => tai42Target(c.url, c.key));
    for (const [i, t] of targets.entries()) await checkTarget(`tai42 ${mode} ${"ABC"[i]}`, t);
    probe = new pg.Client({ connectionString: db.url });
    await probe.connect();
    const database = new URL(db.url).pathname.slice(1);
    // (Timed once the instances have migrated the database, before any load.)
    const nextval = await nextvalMicros(db.url);
    const idle = () =>
      waitFor(
        async () => (await Promise.all(instances.map((c) => c.call<number>("inFlight")))).every((x) => !x),
        120_000,
      );
    const out: EventOrderConfig[] = [];
    for (const n of [1, 2, 3]) {
      const some = targets.slice(0, n);
      await idle();
      await measureSplit(some, { connections: s.connections, warmupSeconds: 0, durationSeconds: s.warmupSeconds });
      await idle();
      const before = await lastSeq(probe);
      const sampler = new LockSampler(settings.postgresUrl!, database, s.sampleMs);
      const load = await sampler.during(() =>
        measureSplit(some, { connections: s.connections, warmupSeconds: 0, durationSeconds: s.durationSeconds }),
      );
      await idle();
      const f = await logFigures(probe, before, await lastSeq(probe));
      const lockWait = sampler.figures();
      const eventsPerBatch = f.events / Math.max(1, f.batches);
      const eventsPerRun = f.events / Math.max(1, f.runs);
      const windowMs = s.durationSeconds * 1000;
      const config: EventOrderConfig = {
        instances: n,
        load,
        lockWait,
        events: f.events,
        batches: f.batches,
        eventsPerBatch: round(eventsPerBatch, 2),
        eventsPerRun: round(eventsPerRun, 2),
        ceilingRunsPerSecond: 0,
      };
      if (mode === "exclusive") {
        const hold = (lockWait.runEventExclusiveShare * windowMs) / Math.max(1, f.batches);
        config.holdMsPerBatch = round(hold, 3);
        config.ceilingRunsPerSecond = Math.round(hold > 0 ? (eventsPerBatch / eventsPerRun / hold) * 1000 : 0);
      }
      out.push(config);
      log(
        `  event-order ${mode.padEnd(9)} ${n} instance${n > 1 ? "s" : " "} ${figuresLine(load)}  ${config.eventsPerBatch} events/batch, exclusive held ${(lockWait.runEventExclusiveShare * 100).toFixed(1)} %, lock waiters in ${(lockWait.lockWaitShare * 100).toFixed(1)} %${config.holdMsPerBatch !== undefined ? `, ${config.holdMsPerBatch} ms held per batch → ceiling ${config.ceilingRunsPerSecond} runs/s` : ""}`,
      );
    }
    if (mode === "shared") {
      // The same workload at every size: one events-per-run figure for the design, so that the ceilings compare.
      const perRun =
        out.reduce((a, c) => a + c.events, 0) /
        Math.max(
          1,
          out.reduce((a, c) => a + c.events / c.eventsPerRun, 0),
        );
      for (const c of out) c.ceilingRunsPerSecond = Math.round(1e6 / (nextval * perRun));
    }
    return { configs: out, nextvalMicros: nextval };
  } finally {
    await probe?.end().catch(() => {});
    await Promise.all(started.map((c) => c.stop()));
    await db?.drop();
  }
}

export async function eventOrderScenario(
  settings: BenchSettings,
  dbs: ScratchDatabases,
  log: (line: string) => void,
): Promise<EventOrderResult> {
  if (!dbs.hasPostgres || !settings.postgresUrl) throw new Error("event-order needs PostgreSQL (--pg)");
  const exclusive = (await design("exclusive", settings, dbs, log)).configs;
  const { configs: shared, nextvalMicros } = await design("shared", settings, dbs, log);
  const at = (c: EventOrderConfig[], n: number) => c.find((x) => x.instances === n)!.ceilingRunsPerSecond;
  return {
    settings: settings.eventOrder,
    nextvalMicros,
    exclusive,
    shared,
    ratios: {
      "shared/exclusive ceiling @3": round(at(shared, 3) / Math.max(1, at(exclusive, 3)), 1),
      "shared ceiling @3 / 1750": round(at(shared, 3) / 1750, 1),
      "exclusive 3/1": round(at(exclusive, 3) / Math.max(1, at(exclusive, 1)), 3),
      "shared 3/1": round(at(shared, 3) / Math.max(1, at(shared, 1)), 3),
    },
  };
}
