/** Who may read `/metrics` (TAI_METRICS). */
export type MetricsAccess = "off" | "loopback" | "admin" | "public";

/**
 * The operations settings of a server: how it converges with the other instances, how
 * it proves it is alive, what it holds of the database, and what it exposes
 * (docs/deploy.md has the reasoning and the arithmetic).
 */
export interface OpsConfig {
  /**
   * Seconds within which a configuration change (presets, manifests, skills) made by any
   * instance or by the CLI is served here, even when the Redis message that announces it
   * is lost: the stored surface version is read this often (TAI_SYNC_SECONDS). @default 2
   */
  syncSeconds: number;
  /** Seconds between this instance's heartbeats (TAI_HEARTBEAT_SECONDS). @default 10 */
  heartbeatSeconds: number;
  /**
   * Seconds without a heartbeat after which an instance is declared gone and its runs are
   * failed by the others (TAI_DEAD_AFTER_SECONDS). Must exceed the heartbeat. @default 3 × heartbeat
   */
  deadAfterSeconds: number;
  /** PostgreSQL connections this instance may hold (TAI_DB_POOL). @default 10 */
  dbPool: number;
  /** Who may read `/metrics` (TAI_METRICS). @default "loopback" (loopback peers and ADMIN keys) */
  metrics: MetricsAccess;
  /**
   * Seconds `/ready` answers 503 after SIGTERM before the listener closes, so that a load
   * balancer stops routing here first; runs in flight keep it open longer while they
   * drain (TAI_UNREADY_SECONDS). @default 0
   */
  unreadySeconds: number;
  /**
   * Where run and attempt spans go over OTLP/HTTP: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as
   * given, else OTEL_EXPORTER_OTLP_ENDPOINT + "/v1/traces". Unset (or OTEL_SDK_DISABLED=true):
   * tracing is off and costs nothing.
   */
  otlpTracesUrl?: string;
}

/** Builds the error for a bad variable (config.ts's ConfigError). */
export type ConfigFailure = (variable: string, message: string) => Error;

function seconds(env: NodeJS.ProcessEnv, fail: ConfigFailure, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) throw fail(name, `must be a number of seconds from ${min} to ${max} (got "${raw}")`);
  return n;
}

const ACCESS: readonly MetricsAccess[] = ["off", "loopback", "admin", "public"];

/** Reads and validates the operations variables; a bad value throws naming the variable. */
export function loadOpsConfig(env: NodeJS.ProcessEnv, fail: ConfigFailure): OpsConfig {
  const heartbeatSeconds = seconds(env, fail, "TAI_HEARTBEAT_SECONDS", 10, 0.05, 3600);
  const deadAfterSeconds = seconds(env, fail, "TAI_DEAD_AFTER_SECONDS", heartbeatSeconds * 3, 0.1, 86_400);
  if (deadAfterSeconds <= heartbeatSeconds)
    throw fail("TAI_DEAD_AFTER_SECONDS", `must be longer than TAI_HEARTBEAT_SECONDS (${heartbeatSeconds}), or every instance would look gone between two of its own beats (got ${deadAfterSeconds})`);
  const pool = env.TAI_DB_POOL;
  const dbPool = pool === undefined || pool === "" ? 10 : Number(pool);
  if (!Number.isInteger(dbPool) || dbPool < 1 || dbPool > 1000) throw fail("TAI_DB_POOL", `must be an integer from 1 to 1000 (got "${pool}")`);
  const metrics = (env.TAI_METRICS || "loopback").toLowerCase() as MetricsAccess;
  if (!ACCESS.includes(metrics)) throw fail("TAI_METRICS", `must be off, loopback, admin or public (got "${env.TAI_METRICS}")`);
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, "");
  const otlp = env.OTEL_SDK_DISABLED === "true" ? undefined : env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || (base ? `${base}/v1/traces` : undefined);
  if (otlp && !/^https?:\/\//.test(otlp)) throw fail(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" : "OTEL_EXPORTER_OTLP_ENDPOINT", `must be an http:// or https:// URL (got "${otlp}")`);
  return {
    syncSeconds: seconds(env, fail, "TAI_SYNC_SECONDS", 2, 0.05, 3600),
    heartbeatSeconds,
    deadAfterSeconds,
    dbPool,
    metrics,
    unreadySeconds: seconds(env, fail, "TAI_UNREADY_SECONDS", 0, 0, 3600),
    otlpTracesUrl: otlp,
  };
}
