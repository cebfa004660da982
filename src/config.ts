import { z } from "zod";
import { parseIdentity, type IdentityConfig } from "./auth/identity-config.ts";
import { ANONYMOUS_ROLES, defaultAnonymousRole, type AnonymousRole } from "./auth/roles.ts";
import { OpsEnvSchema, type OpsConfig } from "./ops/ops-config.ts";
import { DEFAULT_REDACT_CACHE_SIZE } from "./secrets/secrets.ts";
import { refuse, zodIssues } from "./validation/declaration.ts";
import { envBoolean, envChoice, envInteger, envList, envText } from "./validation/env.ts";

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
  /**
   * Variables `!ENV` markers may never name, besides TAI_*, DATABASE_URL and REDIS_URL (TAI_ENV_DENY; a trailing `*` is
   * a prefix). @default []
   */
  envDeny: string[];
  /**
   * `/mcp` issues a session at `initialize` (TAI_MCP_SESSIONS); a request without one is
   * still served statelessly. Off: never a session (docs/mcp.md). @default true
   */
  mcpSessions: boolean;
  /**
   * Redacted (`ctx.redact`) values remembered across runs, least recently redacted forgotten first
   * (TAI_REDACT_CACHE_SIZE). @default 1024
   */
  redactCacheSize: number;
  /** Access tokens from configured issuers (TAI_IDENTITY, docs/security-model.md §1.2); unset: API keys only. */
  identity?: IdentityConfig;
}

/**
 * The rule a bad configuration variable breaks: the refusal is a `DefinitionError` with
 * one issue per bad variable at `/VARIABLE` and the message `VARIABLE: must be …` for each.
 */
export const CONFIG_RULE = "config.env";

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host);
}

/** The server variables as a zod schema over the environment (README has the table). */
const ServerEnvSchema = z
  .object({
    PORT: envInteger(4000, 0, 65535),
    HOST: envText("127.0.0.1"),
    DATABASE_URL: envText(
      "file:./data/tai42.db",
      z.string().regex(/^(file:|postgres(ql)?:\/\/)/),
      () => "must start with file: (SQLite) or postgresql:// (PostgreSQL)",
    ),
    REDIS_URL: envText(undefined, z.string().regex(/^rediss?:\/\//), () => "must start with redis:// or rediss://"),
    TAI_REDIS_PREFIX: envText("tai42:"),
    TAI_MODULES: envList(),
    TAI_EXTENSIONS_DIR: envText(undefined),
    TAI_ANONYMOUS_ROLE: envChoice(
      ANONYMOUS_ROLES,
      undefined,
      (raw) => raw.toUpperCase(),
      (raw) => `must be NONE, READER, USER or ADMIN (got "${raw}")`,
    ),
    TAI_ADMIN_KEY: envText(undefined, z.string().min(16), () => "must be at least 16 characters"),
    TAI_GRAPHIQL: envBoolean(true),
    TAI_CORS_ORIGINS: envList(),
    TAI_MAX_BODY_BYTES: envInteger(1_048_576, 1024, 100 * 1_048_576),
    TAI_DEMO: envBoolean(true),
    TAI_SHUTDOWN_GRACE_SECONDS: envInteger(10, 0, 3600),
    TAI_PUBLIC_URL: envText(undefined),
    TAI_ENV_DENY: envList(),
    TAI_MCP_SESSIONS: envBoolean(true),
    TAI_REDACT_CACHE_SIZE: envInteger(DEFAULT_REDACT_CACHE_SIZE, 1, 1_000_000),
  })
  .transform((env): Omit<Config, keyof OpsConfig> => ({
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    redisPrefix: env.TAI_REDIS_PREFIX,
    modules: env.TAI_MODULES,
    extensionsDir: env.TAI_EXTENSIONS_DIR,
    anonymousRole: env.TAI_ANONYMOUS_ROLE ?? defaultAnonymousRole(isLoopback(env.HOST)),
    adminKey: env.TAI_ADMIN_KEY,
    graphiql: env.TAI_GRAPHIQL,
    corsOrigins: env.TAI_CORS_ORIGINS,
    maxBodyBytes: env.TAI_MAX_BODY_BYTES,
    demo: env.TAI_DEMO,
    shutdownGraceSeconds: env.TAI_SHUTDOWN_GRACE_SECONDS,
    publicUrl: env.TAI_PUBLIC_URL?.replace(/\/+$/, ""),
    envDeny: env.TAI_ENV_DENY,
    mcpSessions: env.TAI_MCP_SESSIONS,
    redactCacheSize: env.TAI_REDACT_CACHE_SIZE,
  }));

/** `TAI_IDENTITY`'s JSON as the identity configuration, or its issues at `/TAI_IDENTITY/…`. */
function identityOf(env: NodeJS.ProcessEnv, publicUrl: string | undefined) {
  const raw = env.TAI_IDENTITY;
  if (raw === undefined || raw === "") return { identity: undefined, issues: [] };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    return {
      identity: undefined,
      issues: [{ path: "/TAI_IDENTITY", message: `must be JSON (${(e as Error).message})` }],
    };
  }
  const parsed = parseIdentity(value, publicUrl, env);
  if ("identity" in parsed) return { identity: parsed.identity, issues: [] };
  return {
    identity: undefined,
    issues: parsed.issues.map((i) => ({ path: `/TAI_IDENTITY${i.path}`, message: i.message })),
  };
}

/** Reads and validates the configuration; every bad value is named in one {@link DefinitionError}. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const server = ServerEnvSchema.safeParse(env);
  const ops = OpsEnvSchema.safeParse(env);
  const identity = identityOf(env, server.data?.publicUrl);
  const issues = [
    ...(server.error ? zodIssues(server.error) : []),
    ...(ops.error ? zodIssues(ops.error) : []),
    ...identity.issues,
  ];
  if (server.success && ops.success && !identity.issues.length)
    return { ...server.data, ...ops.data, ...(identity.identity && { identity: identity.identity }) };
  throw refuse(CONFIG_RULE, issues, {
    describe: (all) => all.map((i) => `${i.path.slice(1)}: ${i.message}`).join("; "),
  });
}
