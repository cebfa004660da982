/** Every knob of a bench run; `fullSettings` is what `npm run bench` uses. */
export interface BenchSettings {
  /** Tiny settings that only prove the script works (BENCH_SMOKE=1 or --smoke). */
  smoke: boolean;
  /** PostgreSQL server for the tai42-on-PostgreSQL dispatch figures (a scratch database is created on it), or null. */
  postgresUrl: string | null;
  /** Scenarios to run. */
  scenarios: ScenarioName[];
  /** Where the results JSON is written. */
  out: string;
  dispatch: { connections: number; warmupSeconds: number; durationSeconds: number; rounds: number; mcpSessions: number };
  scaling: { connections: number[]; warmupSeconds: number; durationSeconds: number };
  fanout: { subscribers: number; dispatches: number; concurrency: number; timeoutSeconds: number };
  agent: { deltas: number; subscribers: number[]; timeoutSeconds: number };
  startup: { runs: number; timeoutSeconds: number };
}

export const SCENARIOS = ["dispatch", "scaling", "fanout", "agent", "writes", "startup"] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export const DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/postgres";

const full: Omit<BenchSettings, "smoke" | "postgresUrl" | "scenarios" | "out"> = {
  dispatch: { connections: 50, warmupSeconds: 3, durationSeconds: 8, rounds: 2, mcpSessions: 50 },
  scaling: { connections: [1, 10, 50, 200], warmupSeconds: 2, durationSeconds: 5 },
  fanout: { subscribers: 1000, dispatches: 200, concurrency: 10, timeoutSeconds: 120 },
  agent: { deltas: 1000, subscribers: [1, 100], timeoutSeconds: 90 },
  startup: { runs: 7, timeoutSeconds: 60 },
};

const smoke: typeof full = {
  dispatch: { connections: 2, warmupSeconds: 0, durationSeconds: 1, rounds: 1, mcpSessions: 2 },
  scaling: { connections: [1, 4], warmupSeconds: 0, durationSeconds: 1 },
  fanout: { subscribers: 10, dispatches: 5, concurrency: 2, timeoutSeconds: 30 },
  agent: { deltas: 20, subscribers: [1, 3], timeoutSeconds: 30 },
  startup: { runs: 1, timeoutSeconds: 60 },
};

/**
 * Reads the command line and environment:
 * `--smoke` (BENCH_SMOKE=1), `--pg[=URL]` (BENCH_PG=1, or DATABASE_URL naming PostgreSQL),
 * `--only=dispatch,scaling,fanout,agent,writes,startup`, `--out=FILE` (BENCH_OUT).
 */
export function readSettings(argv: string[], env: NodeJS.ProcessEnv): BenchSettings {
  const flag = (name: string) => argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  const value = (name: string) => flag(name)?.split("=").slice(1).join("=") || undefined;
  for (const a of argv) if (!/^--(smoke|pg|only|out)(=.*)?$/.test(a)) throw new Error(`unknown argument "${a}" (known: --smoke, --pg[=URL], --only=${SCENARIOS.join(",")}, --out=FILE)`);
  const isSmoke = Boolean(flag("smoke")) || ["1", "true", "yes"].includes((env.BENCH_SMOKE ?? "").toLowerCase());
  let postgresUrl: string | null = null;
  if (flag("pg")) postgresUrl = value("pg") ?? DEFAULT_PG;
  else if (["1", "true", "yes"].includes((env.BENCH_PG ?? "").toLowerCase())) postgresUrl = DEFAULT_PG;
  else if (/^postgres(ql)?:\/\//.test(env.DATABASE_URL ?? "")) postgresUrl = env.DATABASE_URL!;
  const only = value("only")?.split(",").map((s) => s.trim());
  for (const s of only ?? []) if (!(SCENARIOS as readonly string[]).includes(s)) throw new Error(`unknown scenario "${s}" (known: ${SCENARIOS.join(", ")})`);
  return {
    smoke: isSmoke,
    postgresUrl,
    scenarios: (only as ScenarioName[] | undefined) ?? [...SCENARIOS],
    out: value("out") ?? env.BENCH_OUT ?? "bench/results/latest.json",
    ...(isSmoke ? smoke : full),
  };
}
