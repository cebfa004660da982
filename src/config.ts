import { defaultAnonymousRole, isAnonymousRole, type AnonymousRole } from "./auth/roles.ts";
import { loadOpsConfig, type OpsConfig } from "./ops/ops-config.ts";

/** Server configuration, read from the environment (README has the table; docs/deploy.md the operations part). */
export interface Config extends OpsConfig {
  /** @default 4000 */
  port: number;
  /** @default "127.0.0.1" */
  host: string;
  /** `file:…` selects SQLite, `postgresql://…` PostgreSQL. @default "file:./data/tai42.db" */
  databaseUrl: string;
  /** Cross-instance events through Redis; unset means in-process. */
  redisUrl?: string;
  /** Prefix of the Redis channels, so several deployments (or test runs) can share one Redis. @default "tai42:" */
  redisPrefix: string;
  /** Tool modules to load (TAI_MODULES). */
  modules: string[];
  /** A folder whose .ts/.js files manifests may name in extensionsModules (TAI_EXTENSIONS_DIR). */
  extensionsDir?: string;
  /** @default "USER" on a loopback bind, else "NONE" */
  anonymousRole: AnonymousRole;
  /** A bootstrap admin key accepted as given (stored hashed). */
  adminKey?: string;
  /** @default true */
  graphiql: boolean;
  /** Origins CORS allows besides same-origin. @default [] */
  corsOrigins: string[];
  /** Largest accepted request body. @default 1_048_576 */
  maxBodyBytes: number;
  /** Load the demo tools. @default true */
  demo: boolean;
  /** The base URL callers reach this server at (for callback URLs). @default http://HOST:PORT */
  publicUrl?: string;
  /** Seconds a graceful shutdown waits for runs in flight before cancelling them. @default 10 */
  shutdownGraceSeconds: number;
  /** Variables `!ENV` markers may never name, besides TAI_*, DATABASE_URL and REDIS_URL (TAI_ENV_DENY; a trailing `*` is a prefix). @default [] */
  envDeny: string[];
  /**
   * `/mcp` issues a session at `initialize` (TAI_MCP_SESSIONS); a request without one is
   * still served statelessly. Off: never a session (docs/mcp.md). @default true
   */
  mcpSessions: boolean;
}

export class ConfigError extends Error {
  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = "ConfigError";
  }
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host);
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
  return n;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (["1", "true", "yes", "on"].includes(raw.toLowerCase())) return true;
  if (["0", "false", "no", "off"].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, `must be 1/0, true/false, yes/no or on/off (got "${raw}")`);
}

/** Reads and validates the configuration; a bad value throws naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST || "127.0.0.1";
  const databaseUrl = env.DATABASE_URL || "file:./data/tai42.db";
  if (!/^(file:|postgres(ql)?:\/\/)/.test(databaseUrl)) throw new ConfigError("DATABASE_URL", "must start with file: (SQLite) or postgresql:// (PostgreSQL)");
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) throw new ConfigError("REDIS_URL", "must start with redis:// or rediss://");
  const anon = (env.TAI_ANONYMOUS_ROLE || defaultAnonymousRole(isLoopback(host))).toUpperCase();
  if (!isAnonymousRole(anon)) throw new ConfigError("TAI_ANONYMOUS_ROLE", `must be NONE, READER, USER or ADMIN (got "${env.TAI_ANONYMOUS_ROLE}")`);
  const adminKey = env.TAI_ADMIN_KEY || undefined;
  if (adminKey !== undefined && adminKey.length < 16) throw new ConfigError("TAI_ADMIN_KEY", "must be at least 16 characters");
  return {
    port: int(env, "PORT", 4000, 0, 65535),
    host,
    databaseUrl,
    redisUrl,
    redisPrefix: env.TAI_REDIS_PREFIX || "tai42:",
    modules: (env.TAI_MODULES ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    extensionsDir: env.TAI_EXTENSIONS_DIR || undefined,
    anonymousRole: anon,
    adminKey,
    graphiql: bool(env, "TAI_GRAPHIQL", true),
    corsOrigins: (env.TAI_CORS_ORIGINS ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    maxBodyBytes: int(env, "TAI_MAX_BODY_BYTES", 1_048_576, 1024, 100 * 1_048_576),
    demo: bool(env, "TAI_DEMO", true),
    shutdownGraceSeconds: int(env, "TAI_SHUTDOWN_GRACE_SECONDS", 10, 0, 3600),
    publicUrl: env.TAI_PUBLIC_URL ? env.TAI_PUBLIC_URL.replace(/\/+$/, "") : undefined,
    envDeny: (env.TAI_ENV_DENY ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    ...loadOpsConfig(env, (variable, message) => new ConfigError(variable, message)),
    mcpSessions: bool(env, "TAI_MCP_SESSIONS", true),
  };
}
