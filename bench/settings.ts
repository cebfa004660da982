/** Every knob of a bench run; `fullSettings` is what `npm run bench` uses. */
export interface BenchSettings {
  /** Tiny settings that only prove the script works (BENCH_SMOKE=1 or --smoke). */
  smoke: boolean;
  /** The full loads with short windows, one round (BENCH_QUICK=1 or --quick): a check, not a record. */
  quick: boolean;
  /** PostgreSQL server for the tai42-on-PostgreSQL figures (scratch databases are created on it), or null. */
  postgresUrl: string | null;
  /** Redis the two instances of `pg-scale` share (BENCH_REDIS_URL or --redis=URL). */
  redisUrl: string;
  /** Scenarios to run. */
  scenarios: ScenarioName[];
  /** Where the results JSON is written. */
  out: string;
  dispatch: {
    connections: number;
    warmupSeconds: number;
    durationSeconds: number;
    rounds: number;
    mcpSessions: number;
    /** The short 1-connection measurement of tai42 (SQLite) and bare yoga: latency at no queueing. */
    oneConnection: { warmupSeconds: number; durationSeconds: number };
  };
  scaling: { connections: number[]; warmupSeconds: number; durationSeconds: number };
  fanout: { subscribers: number; dispatches: number; concurrency: number; timeoutSeconds: number };
  /** `paced`: a model writing `words` chunks `chunkMs` apart, for the time to the first answer delta (issue 25). */
  agent: { deltas: number; subscribers: number[]; timeoutSeconds: number; paced: { words: number; chunkMs: number } };
  writes: { dispatches: number };
  /** Dispatches of the redacting tool (and as many of echo alone), one after the other, in process. */
  redaction: { dispatches: number };
  /** Calls per side of the connector scenario, in `blocks` alternating blocks, after `warmupCalls` per side. */
  connector: { calls: number; blocks: number; warmupCalls: number };
  startup: { runs: number; timeoutSeconds: number };
  /**
   * Echo dispatches per block, synchronous and background blocks alternating over `rounds` (after `warmupRuns` of
   * each), `concurrency` callers at once and as many queue workers (TAI_QUEUE_CONCURRENCY); a block's wait is bounded.
   * Then `idleRuns` background runs one at a time: the queue latency with no backlog.
   */
  background: {
    runs: number;
    rounds: number;
    concurrency: number;
    warmupRuns: number;
    idleRuns: number;
    timeoutSeconds: number;
  };
  /**
   * Two tai42 instances on one PostgreSQL and one Redis against one instance; total connections, split across the two.
   */
  pgScale: { connections: number; warmupSeconds: number; durationSeconds: number; rounds: number; sampleMs: number };
  /** A tool with generous limits against the same tool without (limits.ts): alternating blocks, in process. */
  limits: { callers: number; warmupSeconds: number; blockSeconds: number; blocks: number };
  /** 1, 2 and 3 instances on one PostgreSQL, the event log's serialised step under each design (event-order.ts). */
  eventOrder: { connections: number; warmupSeconds: number; durationSeconds: number; sampleMs: number };
}

export const SCENARIOS = [
  "dispatch",
  "scaling",
  "fanout",
  "agent",
  "writes",
  "redaction",
  "connector",
  "startup",
  "pg-scale",
  "background",
  "event-order",
  "limits",
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];
/** Scenarios that need PostgreSQL: run by default only with --pg. */
const NEEDS_PG: readonly ScenarioName[] = ["pg-scale", "event-order"];

export const DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/postgres";
export const DEFAULT_REDIS = "redis://127.0.0.1:6379";

type Loads = Omit<BenchSettings, "smoke" | "quick" | "postgresUrl" | "redisUrl" | "scenarios" | "out">;

const full: Loads = {
  dispatch: {
    connections: 50,
    warmupSeconds: 3,
    durationSeconds: 8,
    rounds: 2,
    mcpSessions: 50,
    oneConnection: { warmupSeconds: 1, durationSeconds: 3 },
  },
  scaling: { connections: [1, 10, 50, 200], warmupSeconds: 2, durationSeconds: 5 },
  fanout: { subscribers: 1000, dispatches: 200, concurrency: 10, timeoutSeconds: 120 },
  agent: { deltas: 1000, subscribers: [1, 100], timeoutSeconds: 90, paced: { words: 40, chunkMs: 50 } },
  writes: { dispatches: 500 },
  redaction: { dispatches: 100_000 },
  connector: { calls: 4000, blocks: 4, warmupCalls: 200 },
  startup: { runs: 7, timeoutSeconds: 60 },
  background: { runs: 1000, rounds: 2, concurrency: 10, warmupRuns: 100, idleRuns: 50, timeoutSeconds: 90 },
  pgScale: { connections: 50, warmupSeconds: 3, durationSeconds: 8, rounds: 2, sampleMs: 50 },
  eventOrder: { connections: 48, warmupSeconds: 2, durationSeconds: 8, sampleMs: 2 },
  limits: { callers: 20, warmupSeconds: 2, blockSeconds: 2, blocks: 7 },
};

const quick: Loads = {
  dispatch: {
    ...full.dispatch,
    warmupSeconds: 1,
    durationSeconds: 3,
    rounds: 1,
    oneConnection: { warmupSeconds: 1, durationSeconds: 2 },
  },
  scaling: { ...full.scaling, warmupSeconds: 1, durationSeconds: 2 },
  fanout: { ...full.fanout, dispatches: 100 },
  agent: { ...full.agent, deltas: 300 },
  writes: { dispatches: 200 },
  redaction: { dispatches: 20_000 },
  connector: { calls: 1000, blocks: 2, warmupCalls: 100 },
  startup: { runs: 3, timeoutSeconds: 60 },
  background: { ...full.background, runs: 300, rounds: 1, warmupRuns: 50, idleRuns: 20 },
  pgScale: { ...full.pgScale, warmupSeconds: 1, durationSeconds: 4, rounds: 1 },
  eventOrder: { ...full.eventOrder, warmupSeconds: 1, durationSeconds: 4 },
  limits: { ...full.limits, warmupSeconds: 1, blockSeconds: 2, blocks: 2 },
};

const smoke: Loads = {
  dispatch: {
    connections: 2,
    warmupSeconds: 0,
    durationSeconds: 1,
    rounds: 1,
    mcpSessions: 2,
    oneConnection: { warmupSeconds: 0, durationSeconds: 1 },
  },
  scaling: { connections: [1, 4], warmupSeconds: 0, durationSeconds: 1 },
  fanout: { subscribers: 10, dispatches: 5, concurrency: 2, timeoutSeconds: 30 },
  agent: { deltas: 20, subscribers: [1, 3], timeoutSeconds: 30, paced: { words: 30, chunkMs: 50 } },
  writes: { dispatches: 20 },
  redaction: { dispatches: 200 },
  connector: { calls: 20, blocks: 2, warmupCalls: 5 },
  startup: { runs: 1, timeoutSeconds: 60 },
  background: { runs: 20, rounds: 1, concurrency: 4, warmupRuns: 5, idleRuns: 5, timeoutSeconds: 30 },
  pgScale: { connections: 4, warmupSeconds: 0, durationSeconds: 1, rounds: 1, sampleMs: 50 },
  eventOrder: { connections: 6, warmupSeconds: 0, durationSeconds: 1, sampleMs: 5 },
  limits: { callers: 2, warmupSeconds: 0, blockSeconds: 0.5, blocks: 1 },
};

const yes = (v: string | undefined) => ["1", "true", "yes"].includes((v ?? "").toLowerCase());

/**
 * Reads the command line and environment:
 * `--smoke` (BENCH_SMOKE=1), `--quick` (BENCH_QUICK=1), `--pg[=URL]` (BENCH_PG=1, or
 * DATABASE_URL naming PostgreSQL), `--redis=URL` (BENCH_REDIS_URL),
 * `BENCH_REDACTION_DISPATCHES=N` (the redaction scenario's count),
 * `--only=dispatch,scaling,fanout,agent,writes,redaction,connector,startup,pg-scale,background,event-order,limits`,
 * `--out=FILE` (BENCH_OUT).
 */
export function readSettings(argv: string[], env: NodeJS.ProcessEnv): BenchSettings {
  const flag = (name: string) => argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  const value = (name: string) => flag(name)?.split("=").slice(1).join("=") || undefined;
  for (const a of argv)
    if (!/^--(smoke|quick|pg|redis|only|out)(=.*)?$/.test(a))
      throw new Error(
        `unknown argument "${a}" (known: --smoke, --quick, --pg[=URL], --redis=URL, --only=${SCENARIOS.join(",")}, --out=FILE)`,
      );
  const isSmoke = Boolean(flag("smoke")) || yes(env.BENCH_SMOKE);
  const isQuick = Boolean(flag("quick")) || yes(env.BENCH_QUICK);
  if (isSmoke && isQuick) throw new Error("--smoke and --quick exclude each other");
  let postgresUrl: string | null = null;
  if (flag("pg")) postgresUrl = value("pg") ?? DEFAULT_PG;
  else if (yes(env.BENCH_PG)) postgresUrl = DEFAULT_PG;
  else if (/^postgres(ql)?:\/\//.test(env.DATABASE_URL ?? "")) postgresUrl = env.DATABASE_URL!;
  const only = value("only")
    ?.split(",")
    .map((s) => s.trim());
  for (const s of only ?? [])
    if (!(SCENARIOS as readonly string[]).includes(s))
      throw new Error(`unknown scenario "${s}" (known: ${SCENARIOS.join(", ")})`);
  for (const s of only ?? [])
    if (NEEDS_PG.includes(s as ScenarioName) && !postgresUrl)
      throw new Error(`scenario "${s}" needs PostgreSQL: add --pg[=URL] (or BENCH_PG=1)`);
  const redisUrl = value("redis") ?? env.BENCH_REDIS_URL ?? DEFAULT_REDIS;
  if (!/^rediss?:\/\//.test(redisUrl))
    throw new Error(`--redis must be a redis:// or rediss:// URL (got "${redisUrl}")`);
  const loads = isSmoke ? smoke : isQuick ? quick : full;
  const redactions = env.BENCH_REDACTION_DISPATCHES;
  if (redactions !== undefined && !/^[1-9]\d*$/.test(redactions))
    throw new Error(`BENCH_REDACTION_DISPATCHES must be a positive integer (got "${redactions}")`);
  return {
    smoke: isSmoke,
    quick: isQuick,
    postgresUrl,
    redisUrl,
    scenarios: (only as ScenarioName[] | undefined) ?? SCENARIOS.filter((s) => postgresUrl || !NEEDS_PG.includes(s)),
    out: value("out") ?? env.BENCH_OUT ?? "bench/results/latest.json",
    ...loads,
    redaction: redactions ? { dispatches: Number(redactions) } : loads.redaction,
  };
}

/** A URL as results and messages may show it: without its password. */
export function withoutPassword<T extends string | null>(url: T): T {
  if (!url) return url;
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString() as T;
}
