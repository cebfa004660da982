import { z } from "zod";
import { envChoice, envInteger, envSeconds } from "../validation/env.ts";

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
  /**
   * Seconds between this instance's re-listings of every connector's upstream (TAI_CONNECTOR_REFRESH_SECONDS,
   * docs/connectors.md §7). @default 300
   */
  connectorRefreshSeconds: number;
  /**
   * Seconds a connector put waits for its upstream to connect and then to list, and a refresh for its connection
   * (TAI_CONNECTOR_CONNECT_SECONDS, docs/connectors.md §2). @default 30
   */
  connectorConnectSeconds: number;
  /** Seconds between this instance's heartbeats (TAI_HEARTBEAT_SECONDS). @default 10 */
  heartbeatSeconds: number;
  /**
   * Seconds without a heartbeat after which an instance is declared gone and its runs are
   * failed by the others (TAI_DEAD_AFTER_SECONDS). Must exceed the heartbeat. @default 3 × heartbeat
   */
  deadAfterSeconds: number;
  /** PostgreSQL connections this instance may hold (TAI_DB_POOL). @default 10 */
  dbPool: number;
  /**
   * Background runs this instance executes at once (TAI_QUEUE_CONCURRENCY, docs/run-lifecycle.md §11.2); the rest wait
   * QUEUED. @default 10
   */
  queueConcurrency: number;
  /**
   * Dispatches of the API doors open on this instance at most; past it a new one is refused UNAVAILABLE, HTTP 503
   * (TAI_MAX_IN_FLIGHT, docs/flow-control.md §5). @default 1000
   */
  maxInFlight: number;
  /**
   * Seconds the run log's oldest write may have waited before new dispatches are refused the same way
   * (TAI_MAX_DB_WAIT_SECONDS). @default 2
   */
  maxDbWaitSeconds: number;
  /** Who may read `/metrics` (TAI_METRICS). @default "loopback" (loopback peers and ADMIN keys) */
  metrics: MetricsAccess;
  /**
   * Seconds after SIGTERM during which `/ready` answers 503 while the instance still
   * serves and accepts new runs, so that a load balancer stops routing here before runs
   * are refused; then new runs are refused and those in flight drain
   * (TAI_UNREADY_SECONDS). The wait applies only when `/ready` was requested within the
   * 30 s before SIGTERM (something routes by readiness): a plain `npm start` and Ctrl-C
   * does not wait. 5 s covers a balancer checking every 1–2 s that takes a target out
   * after one or two failed checks. @default 5
   */
  unreadySeconds: number;
  /**
   * Seconds a client has to send a whole request, headers and body, from its first byte
   * (TAI_REQUEST_TIMEOUT_SECONDS; Node's `server.requestTimeout`): a client that stalls
   * mid-body is answered 408 and cut. Only the receipt of the request is timed, never
   * the response: SSE, graphql-ws, `/mcp` streams and long dispatches run on. @default 60
   */
  requestTimeoutSeconds: number;
  /**
   * Seconds a client has to send a request's headers (TAI_HEADERS_TIMEOUT_SECONDS; `server.headersTimeout`); at most
   * the request timeout. @default 20
   */
  headersTimeoutSeconds: number;
  /**
   * Where run and attempt spans go over OTLP/HTTP: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as
   * given, else OTEL_EXPORTER_OTLP_ENDPOINT + "/v1/traces". Unset (or OTEL_SDK_DISABLED=true):
   * tracing is off and costs nothing.
   */
  otlpTracesUrl?: string;
}

const ACCESS = ["off", "loopback", "admin", "public"] as const satisfies readonly MetricsAccess[];
const HTTP_URL = z.string().regex(/^https?:\/\//);

/**
 * The operations variables as a zod schema over the environment (docs/deploy.md): a bad
 * value is an issue at `/VARIABLE`; the output is the {@link OpsConfig}.
 */
export const OpsEnvSchema = z
  .object({
    TAI_SYNC_SECONDS: envSeconds(2, 0.05, 3600),
    TAI_HEARTBEAT_SECONDS: envSeconds(10, 0.05, 3600),
    TAI_CONNECTOR_REFRESH_SECONDS: envSeconds(300, 1, 86_400),
    TAI_CONNECTOR_CONNECT_SECONDS: envSeconds(30, 0.1, 600),
    TAI_DEAD_AFTER_SECONDS: envSeconds(undefined, 0.1, 86_400),
    TAI_DB_POOL: envInteger(10, 1, 1000),
    TAI_QUEUE_CONCURRENCY: envInteger(10, 1, 1000),
    TAI_MAX_IN_FLIGHT: envInteger(1000, 1, 1_000_000),
    TAI_MAX_DB_WAIT_SECONDS: envSeconds(2, 0.05, 3600),
    TAI_METRICS: envChoice(
      ACCESS,
      "loopback",
      (raw) => raw.toLowerCase(),
      (raw) => `must be off, loopback, admin or public (got "${raw}")`,
    ),
    TAI_UNREADY_SECONDS: envSeconds(5, 0, 3600),
    TAI_REQUEST_TIMEOUT_SECONDS: envSeconds(60, 0.5, 3600),
    TAI_HEADERS_TIMEOUT_SECONDS: envSeconds(undefined, 0.5, 3600),
    OTEL_EXPORTER_OTLP_ENDPOINT: z.string().optional(),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().optional(),
    OTEL_SDK_DISABLED: z.string().optional(),
  })
  // The cross-variable checks run once the variables they read have parsed, even when
  // others failed, so one error names every bad variable at once.
  .refine((env) => deadAfter(env) > env.TAI_HEARTBEAT_SECONDS, {
    path: ["TAI_DEAD_AFTER_SECONDS"],
    when: parsed("TAI_HEARTBEAT_SECONDS", "TAI_DEAD_AFTER_SECONDS"),
    error: (issue) => {
      const env = issue.input as { TAI_HEARTBEAT_SECONDS: number; TAI_DEAD_AFTER_SECONDS?: number };
      return `must be longer than TAI_HEARTBEAT_SECONDS (${env.TAI_HEARTBEAT_SECONDS}), or every instance would look gone between two of its own beats (got ${deadAfter(env)})`;
    },
  })
  .refine((env) => headersTimeout(env) <= env.TAI_REQUEST_TIMEOUT_SECONDS, {
    path: ["TAI_HEADERS_TIMEOUT_SECONDS"],
    when: parsed("TAI_REQUEST_TIMEOUT_SECONDS", "TAI_HEADERS_TIMEOUT_SECONDS"),
    error: (issue) => {
      const env = issue.input as { TAI_REQUEST_TIMEOUT_SECONDS: number; TAI_HEADERS_TIMEOUT_SECONDS?: number };
      return `must be at most TAI_REQUEST_TIMEOUT_SECONDS (${env.TAI_REQUEST_TIMEOUT_SECONDS}): the headers are part of the request (got ${headersTimeout(env)})`;
    },
  })
  .refine((env) => !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || otlpOk(env), {
    path: ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"],
    when: parsed("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED"),
    error: (issue) => `must be an http:// or https:// URL (got "${otlpUrl(issue.input as OtlpEnv)}")`,
  })
  .refine((env) => !!env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || otlpOk(env), {
    path: ["OTEL_EXPORTER_OTLP_ENDPOINT"],
    when: parsed("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED"),
    error: (issue) => `must be an http:// or https:// URL (got "${otlpUrl(issue.input as OtlpEnv)}")`,
  })
  .transform((env): OpsConfig => ({
    syncSeconds: env.TAI_SYNC_SECONDS,
    heartbeatSeconds: env.TAI_HEARTBEAT_SECONDS,
    connectorRefreshSeconds: env.TAI_CONNECTOR_REFRESH_SECONDS,
    connectorConnectSeconds: env.TAI_CONNECTOR_CONNECT_SECONDS,
    deadAfterSeconds: deadAfter(env),
    dbPool: env.TAI_DB_POOL,
    queueConcurrency: env.TAI_QUEUE_CONCURRENCY,
    maxInFlight: env.TAI_MAX_IN_FLIGHT,
    maxDbWaitSeconds: env.TAI_MAX_DB_WAIT_SECONDS,
    metrics: env.TAI_METRICS,
    unreadySeconds: env.TAI_UNREADY_SECONDS,
    requestTimeoutSeconds: env.TAI_REQUEST_TIMEOUT_SECONDS,
    headersTimeoutSeconds: headersTimeout(env),
    otlpTracesUrl: otlpUrl(env),
  }));

interface OtlpEnv {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  OTEL_SDK_DISABLED?: string;
}

/** TAI_DEAD_AFTER_SECONDS, by default three heartbeats. */
function deadAfter(env: { TAI_HEARTBEAT_SECONDS: number; TAI_DEAD_AFTER_SECONDS?: number }): number {
  return env.TAI_DEAD_AFTER_SECONDS ?? env.TAI_HEARTBEAT_SECONDS * 3;
}

/** TAI_HEADERS_TIMEOUT_SECONDS, by default 20 s or the request timeout if that is shorter. */
function headersTimeout(env: { TAI_REQUEST_TIMEOUT_SECONDS: number; TAI_HEADERS_TIMEOUT_SECONDS?: number }): number {
  return env.TAI_HEADERS_TIMEOUT_SECONDS ?? Math.min(20, env.TAI_REQUEST_TIMEOUT_SECONDS);
}

/** The OTLP traces URL the variables name, if tracing is on. */
function otlpUrl(env: OtlpEnv): string | undefined {
  if (env.OTEL_SDK_DISABLED === "true") return undefined;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, "");
  return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || (base ? `${base}/v1/traces` : undefined);
}

/** Tracing is off, or its URL is http(s). */
function otlpOk(env: OtlpEnv): boolean {
  const url = otlpUrl(env);
  return !url || HTTP_URL.safeParse(url).success;
}

/** A refinement's `when`: every one of `variables` parsed without an issue. */
function parsed(
  ...variables: string[]
): (payload: { issues: readonly { path?: readonly PropertyKey[] }[] }) => boolean {
  return (payload) => !payload.issues.some((i) => variables.includes(String(i.path?.[0])));
}
