import pg from "pg";
import { round } from "./percentiles.ts";

/**
 * Lock waits in one PostgreSQL database over a measured window, from samples of
 * `pg_stat_activity` and `pg_locks` (cluster-wide views, read over a connection to
 * another database so the sampler is never one of the backends it counts).
 *
 * The queue is the advisory locks requested and not yet granted in the database: while
 * every run-event transaction took `pg_advisory_xact_lock(hashtext('tai42:RunEvent'))` exclusively (before the
 * settled order, docs/run-lifecycle.md §9; now only the bench's baseline does, src/db/event-log.ts) that is the
 * number of transactions waiting for the event log; writers now hold it shared and never wait.
 * Nothing here depends on that lock existing: with no advisory lock the figures are zeros.
 */
export interface LockWaitFigures {
  samples: number;
  /** Mean time between samples actually achieved (the sampler shares the machine). */
  intervalMs: number;
  /** Share of samples with at least one advisory-lock waiter (pg_locks, not granted). */
  advisoryWaitShare: number;
  /** Advisory-lock waiters per sample: the queue. */
  advisoryQueueMean: number;
  advisoryQueueMax: number;
  /** Of those, waiters for tai42's run-event lock (hashtext('tai42:RunEvent')), per sample. */
  runEventQueueMean: number;
  /**
   * Share of samples with a backend of the database waiting on any heavyweight lock (pg_stat_activity wait_event_type
   * 'Lock').
   */
  lockWaitShare: number;
  /** Backends waiting on any lock, per sample. */
  lockWaitersMean: number;
  lockWaitersMax: number;
  /**
   * Share of samples in which an advisory lock was held by a backend idle in its transaction: the lock held across a
   * client round trip.
   */
  holderIdleInTransactionShare: number;
  /** Backends of the database running a statement, per sample. */
  activeMean: number;
  /** Share of samples in which some transaction held the run-event lock exclusively (the serialising design). */
  runEventExclusiveShare: number;
  /** Transactions holding the run-event lock in shared mode (registered writers), per sample. */
  runEventSharedMean: number;
}

interface Sample {
  advisoryWaiting: number;
  runEventWaiting: number;
  lockWaiters: number;
  holderIdle: number;
  active: number;
  runEventExclusive: number;
  runEventShared: number;
}

const SAMPLE = /* SQL */ `
WITH act AS (
  SELECT pid, state, wait_event_type FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()
), adv AS (
  SELECT l.pid, l.granted, l.mode, l.classid::bigint AS hi, l.objid::bigint AS lo
  FROM pg_locks l JOIN pg_database d ON d.oid = l.database
  WHERE d.datname = $1 AND l.locktype = 'advisory'
), key AS (
  SELECT (k >> 32) & 4294967295 AS hi, k & 4294967295 AS lo FROM (SELECT hashtext('tai42:RunEvent')::bigint AS k) s
)
SELECT
  (SELECT count(*) FROM adv WHERE NOT granted)::int AS "advisoryWaiting",
  (SELECT count(*) FROM adv, key WHERE NOT adv.granted AND adv.hi = key.hi AND adv.lo = key.lo)::int AS "runEventWaiting",
  (SELECT count(*) FROM act WHERE wait_event_type = 'Lock')::int AS "lockWaiters",
  (SELECT count(*) FROM adv JOIN act USING (pid) WHERE adv.granted AND act.state LIKE 'idle in transaction%')::int AS "holderIdle",
  (SELECT count(*) FROM act WHERE state = 'active')::int AS "active",
  (SELECT count(*) FROM adv, key WHERE adv.granted AND adv.mode = 'ExclusiveLock' AND adv.hi = key.hi AND adv.lo = key.lo)::int AS "runEventExclusive",
  (SELECT count(*) FROM adv, key WHERE adv.granted AND adv.mode = 'ShareLock' AND adv.hi = key.hi AND adv.lo = key.lo)::int AS "runEventShared"
`;

/**
 * Samples lock waits in `database` every `intervalMs` during the windows it is given
 * ({@link LockSampler.during}); {@link LockSampler.figures} sums up all of them.
 */
export class LockSampler {
  private readonly samples: Sample[] = [];
  private sampledMs = 0;

  /**
   * @param serverUrl a URL of the PostgreSQL server; the sampler connects to the database it names, never the measured
   * one
   * @param database the database whose backends are sampled
   */
  constructor(
    private readonly serverUrl: string,
    private readonly database: string,
    private readonly intervalMs: number,
  ) {}

  /** Runs `fn` while sampling (connected before `fn` starts, so its whole time is covered). */
  async during<T>(fn: () => Promise<T>): Promise<T> {
    const client = new pg.Client({
      connectionString: this.serverUrl,
      connectionTimeoutMillis: 5000,
      statement_timeout: 5000,
    });
    await client.connect();
    let stopped = false;
    try {
      await client.query(SAMPLE, [this.database]);
      const started = performance.now();
      const sampling = (async () => {
        while (!stopped) {
          const t = performance.now();
          this.samples.push((await client.query<Sample>(SAMPLE, [this.database])).rows[0]);
          const rest = this.intervalMs - (performance.now() - t);
          if (rest > 0 && !stopped) await new Promise((r) => setTimeout(r, rest));
        }
      })();
      try {
        return await fn();
      } finally {
        stopped = true;
        await sampling;
        this.sampledMs += performance.now() - started;
      }
    } finally {
      await client.end();
    }
  }

  /** The figures of every window so far. */
  figures(): LockWaitFigures {
    const samples = this.samples;
    const n = samples.length;
    const share = (f: (s: Sample) => boolean) => round(samples.filter(f).length / n, 3);
    const mean = (f: (s: Sample) => number) => round(samples.reduce((a, s) => a + f(s), 0) / n, 2);
    const max = (f: (s: Sample) => number) => Math.max(0, ...samples.map(f));
    return {
      samples: n,
      intervalMs: round(this.sampledMs / Math.max(1, n), 1),
      advisoryWaitShare: share((s) => s.advisoryWaiting > 0),
      advisoryQueueMean: mean((s) => s.advisoryWaiting),
      advisoryQueueMax: max((s) => s.advisoryWaiting),
      runEventQueueMean: mean((s) => s.runEventWaiting),
      lockWaitShare: share((s) => s.lockWaiters > 0),
      lockWaitersMean: mean((s) => s.lockWaiters),
      lockWaitersMax: max((s) => s.lockWaiters),
      holderIdleInTransactionShare: share((s) => s.holderIdle > 0),
      activeMean: mean((s) => s.active),
      runEventExclusiveShare: share((s) => s.runEventExclusive > 0),
      runEventSharedMean: mean((s) => s.runEventShared),
    };
  }
}
