import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import type { Child } from "../lib/child.ts";
import type { ScratchDatabases, ScratchDb } from "../lib/databases.ts";
import {
  figuresLine,
  meanFigures,
  measureSplit,
  type HttpTarget,
  type LoadFigures,
  type SplitFigures,
} from "../lib/load.ts";
import { round } from "../lib/percentiles.ts";
import { LockSampler, type LockWaitFigures } from "../lib/pg-locks.ts";
import { waitFor } from "../lib/send.ts";
import { startTai42, startYoga, type Tai42Child } from "../lib/servers.ts";
import { checkTarget, tai42Target, yogaTarget } from "../lib/targets.ts";
import { withoutPassword, type BenchSettings } from "../settings.ts";

/**
 * One configuration's figures: the mean over rounds, each round, and (tai42) the lock waits of its measured windows.
 */
export interface PgScaleFigures extends LoadFigures {
  rounds: SplitFigures[];
  /** Each instance's share (two instances only), the mean over rounds. */
  perInstance?: LoadFigures[];
  lockWait?: LockWaitFigures;
}

/**
 * Scenario `pg-scale`: tai42 dispatch on PostgreSQL with two instances on one database and
 * one Redis, the load split between them, against one instance (same processes, same
 * database) under the same total connections, and bare yoga with those connections too;
 * PostgreSQL's lock waits sampled during every measured tai42 window.
 */
export interface PgScaleResult {
  settings: BenchSettings["pgScale"];
  /** The Redis both instances publish through, or why there was none. */
  redis: { prefix: string; subscribers: Record<string, number> } | { unavailable: string };
  yoga: PgScaleFigures;
  one: PgScaleFigures;
  two: PgScaleFigures;
  ratios: { "two/one": number; "two/one p99": number; "one/yoga": number; "two/yoga": number };
  /** What the shared database holds afterwards (every request a stored run). */
  persisted: { runs: number; succeeded: number; events: number };
  /**
   * Waits before each window until neither instance had a dispatch in flight: the
   * leftovers of the previous load (requests whose connection autocannon closed) would
   * otherwise take the server's time in a window that does not count them.
   */
  drain: { longestSeconds: number; timedOut: number };
}

/** Whether Redis answers at `url`; the error's message when not. */
async function pingRedis(url: string): Promise<string | null> {
  const r = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  r.on("error", () => {});
  try {
    await r.connect();
    await r.ping();
    return null;
  } catch (e) {
    return `no answer at ${withoutPassword(url)} (${e instanceof Error ? e.message : String(e)})`;
  } finally {
    r.disconnect();
  }
}

/**
 * Subscribers per channel under `prefix`, once every instance's key store listens to
 * `keyRevoked` (they do from start-up; 10 s at most): proof that both instances share
 * the Redis.
 */
async function redisSubscribers(url: string, prefix: string, instances: number): Promise<Record<string, number>> {
  const r = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let out: Record<string, number> = {};
    await waitFor(async () => {
      const channels = ((await r.call("PUBSUB", "CHANNELS", `${prefix}*`)) as string[]).sort();
      const counts = channels.length ? ((await r.call("PUBSUB", "NUMSUB", ...channels)) as (string | number)[]) : [];
      out = {};
      for (let i = 0; i < counts.length; i += 2) out[String(counts[i]).slice(prefix.length)] = Number(counts[i + 1]);
      return (out.keyRevoked ?? 0) >= instances;
    }, 10_000);
    return out;
  } finally {
    r.disconnect();
  }
}

/** How long a window waits at most for the previous load's leftover dispatches. */
const DRAIN_TIMEOUT_MS = 120_000;

interface Config {
  name: "yoga" | "one" | "two";
  /** The targets of round `r`. */
  targets: (r: number) => HttpTarget[];
  sampler?: LockSampler;
  rounds: SplitFigures[];
}

export async function pgScaleScenario(
  settings: BenchSettings,
  dbs: ScratchDatabases,
  log: (line: string) => void,
): Promise<PgScaleResult> {
  const s = settings.pgScale;
  if (!dbs.hasPostgres || !settings.postgresUrl) throw new Error("pg-scale needs PostgreSQL (--pg)");
  if (s.connections < 2) throw new Error("pg-scale needs at least 2 connections to split over two instances");
  const unreachable = await pingRedis(settings.redisUrl);
  const prefix = `tai42-bench-${process.pid}-${randomUUID().slice(0, 8)}:`;
  const redis = unreachable ? undefined : { url: settings.redisUrl, prefix };
  if (unreachable) log(`  Redis: ${unreachable}; the two instances run with in-process buses`);

  const started: Child[] = [];
  let db: ScratchDb | null = null;
  try {
    db = await dbs.create("postgres");
    const yoga = await startYoga();
    started.push(yoga);
    const instances: Tai42Child[] = [];
    for (const label of ["A", "B"]) {
      const c = await startTai42(dbs, "postgres", { db, redis, label });
      started.push(c);
      instances.push(c);
    }
    const [a, b] = instances.map((c) => tai42Target(c.url, c.key));
    await checkTarget("yoga", yogaTarget(yoga.url));
    await checkTarget("tai42 A", a);
    await checkTarget("tai42 B", b);
    const subscribers = redis ? await redisSubscribers(redis.url, prefix, instances.length) : null;
    if (subscribers && (subscribers.keyRevoked ?? 0) < instances.length)
      log(`  Redis: fewer subscribers than instances on ${prefix}keyRevoked: ${JSON.stringify(subscribers)}`);
    const drain = { longestSeconds: 0, timedOut: 0 };
    const drained = async () => {
      const t = performance.now();
      const idle = await waitFor(
        async () => (await Promise.all(instances.map((c) => c.call<number>("inFlight")))).every((n) => n === 0),
        DRAIN_TIMEOUT_MS,
      );
      const seconds = (performance.now() - t) / 1000;
      drain.longestSeconds = Math.max(drain.longestSeconds, round(seconds, 1));
      if (!idle) drain.timedOut++;
      if (seconds > 1 || !idle)
        log(
          `  pg-scale: ${idle ? "leftover dispatches done" : "dispatches still in flight"} after ${seconds.toFixed(1)} s`,
        );
    };

    const database = new URL(db.url).pathname.slice(1);
    const configs: Config[] = [
      { name: "yoga", targets: () => [yogaTarget(yoga.url)], rounds: [] },
      // One instance serving, the other idle: A in odd rounds, B in even ones.
      {
        name: "one",
        targets: (r) => [r % 2 === 0 ? a : b],
        sampler: new LockSampler(settings.postgresUrl, database, s.sampleMs),
        rounds: [],
      },
      {
        name: "two",
        targets: () => [a, b],
        sampler: new LockSampler(settings.postgresUrl, database, s.sampleMs),
        rounds: [],
      },
    ];
    for (let r = 0; r < s.rounds; r++) {
      for (const c of r % 2 === 0 ? configs : [...configs].reverse()) {
        const targets = c.targets(r);
        await drained();
        if (s.warmupSeconds > 0) {
          await measureSplit(targets, {
            connections: s.connections,
            warmupSeconds: 0,
            durationSeconds: s.warmupSeconds,
          });
          await drained();
        }
        const measure = () =>
          measureSplit(targets, { connections: s.connections, warmupSeconds: 0, durationSeconds: s.durationSeconds });
        const f = c.sampler ? await c.sampler.during(measure) : await measure();
        c.rounds.push(f);
        log(
          `  pg-scale round ${r + 1}/${s.rounds} ${c.name.padEnd(4)} ${figuresLine(f)}${f.parts.length > 1 ? `  (${f.parts.map((p) => p.rps.toFixed(0)).join(" + ")} req/s)` : ""}`,
        );
      }
    }

    const figures = (c: Config): PgScaleFigures => {
      const f: PgScaleFigures = { ...meanFigures(c.rounds), rounds: c.rounds };
      if (c.rounds[0].parts.length > 1)
        f.perInstance = c.rounds[0].parts.map((_, i) => meanFigures(c.rounds.map((r) => r.parts[i])));
      if (c.sampler) f.lockWait = c.sampler.figures();
      return f;
    };
    const [y, one, two] = configs.map(figures);
    await drained();
    const persisted = await instances[0].call<PgScaleResult["persisted"]>("persisted");
    for (const [name, f] of [
      ["one", one],
      ["two", two],
    ] as const) {
      const w = f.lockWait!;
      log(
        `  pg-scale lock wait (${name}): ${w.samples} samples, advisory waiter in ${(w.advisoryWaitShare * 100).toFixed(1)} %, queue mean ${w.advisoryQueueMean} max ${w.advisoryQueueMax}; holder idle in transaction in ${(w.holderIdleInTransactionShare * 100).toFixed(1)} %`,
      );
    }
    return {
      settings: s,
      redis: subscribers ? { prefix, subscribers } : { unavailable: unreachable! },
      yoga: y,
      one,
      two,
      ratios: {
        "two/one": round(two.rps / one.rps, 3),
        "two/one p99": round(two.p99 / one.p99, 3),
        "one/yoga": round(one.rps / y.rps, 3),
        "two/yoga": round(two.rps / y.rps, 3),
      },
      persisted,
      drain,
    };
  } finally {
    await Promise.all(started.map((c) => c.stop()));
    await db?.drop();
  }
}
