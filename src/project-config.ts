import { isAbsolute, resolve } from "node:path";
import { z } from "zod";
import { IdentitySchema } from "./auth/identity-config.ts";
import { ANONYMOUS_ROLES } from "./auth/roles.ts";
import { DefinitionError } from "./definition-error.ts";
import { zodIssues } from "./validation/declaration.ts";

/**
 * The rule a bad project config file breaks: the refusal is a `DefinitionError` whose message names the file, with one
 * issue per bad key at its JSON-pointer path (`/server/port: …`).
 */
export const PROJECT_CONFIG_RULE = "config.file";

/** An `!ENV NAME` marker: a secret named, never written. */
const ENV_MARKER = /^!ENV ([A-Za-z_][A-Za-z0-9_]*)$/;
const envRef = z
  .string()
  .regex(ENV_MARKER, 'must be an "!ENV NAME" marker (a secret is never written in a config file)')
  .optional();
const seconds = (min: number, max: number) => z.number().min(min).max(max).optional();
const integer = (min: number, max: number) => z.number().int().min(min).max(max).optional();

/** The schema of `tai42.config.*` (README "The project config file"): every key optional, unknown keys refused. */
export const ProjectConfigSchema = z.strictObject({
  /** Tool and extension modules: paths relative to the config file's folder, or package specifiers. */
  modules: z.array(z.string().min(1)).optional(),
  /** A folder (relative to the config file) whose modules manifests may name in extensionsModules. */
  extensionsDir: z.string().min(1).optional(),
  /** `file:…` (a relative SQLite path is relative to the config file's folder) or `postgresql://…`. */
  database: z
    .strictObject({
      url: z
        .string()
        .regex(/^(file:|postgres(ql)?:\/\/)/, "must start with file: (SQLite) or postgresql:// (PostgreSQL)")
        .optional(),
    })
    .optional(),
  redis: z
    .strictObject({
      url: z
        .string()
        .regex(/^rediss?:\/\//, "must start with redis:// or rediss://")
        .optional(),
      prefix: z.string().min(1).optional(),
    })
    .optional(),
  /** Serve the demo tools. @default false in a project (a config file found), true in the tai42 checkout */
  demo: z.boolean().optional(),
  providers: z
    .strictObject({
      /** The provider of a run that names none (TAI_LLM_PROVIDER). */
      default: z.string().min(1).optional(),
      openaiCompatible: z
        .strictObject({ baseUrl: z.url().optional(), model: z.string().min(1).optional(), apiKey: envRef })
        .optional(),
      anthropic: z.strictObject({ model: z.string().min(1).optional(), apiKey: envRef }).optional(),
    })
    .optional(),
  limits: z
    .strictObject({
      maxInFlight: integer(1, 1_000_000),
      maxDbWaitSeconds: seconds(0.05, 3600),
      queueConcurrency: integer(1, 1000),
      dbPool: integer(1, 1000),
      maxBodyBytes: integer(1024, 100 * 1_048_576),
      shutdownGraceSeconds: integer(0, 3600),
    })
    .optional(),
  server: z
    .strictObject({
      port: integer(0, 65535),
      host: z.string().min(1).optional(),
      publicUrl: z.url().optional(),
      cors: z.array(z.string().min(1)).optional(),
      anonymousRole: z.enum(ANONYMOUS_ROLES).optional(),
      graphiql: z.boolean().optional(),
    })
    .optional(),
  /** Access tokens from configured issuers (docs/security-model.md §1.2, docs/deploy.md): TAI_IDENTITY. */
  identity: IdentitySchema.optional(),
});

/** What `tai42.config.ts` exports (README "The project config file"). */
export type ProjectConfig = z.input<typeof ProjectConfigSchema>;

/** Types a project config file: `export default defineConfig({ modules: ["tools/hello.ts"] })`. */
export function defineConfig(config: ProjectConfig): ProjectConfig {
  return config;
}

/** Validates a config file's value; a bad one is one {@link DefinitionError} naming the file and each bad key. */
export function parseProjectConfig(value: unknown, file: string): ProjectConfig {
  const parsed = ProjectConfigSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = zodIssues(parsed.error);
  throw new DefinitionError(
    PROJECT_CONFIG_RULE,
    `${file}: ${issues.map((i) => `${i.path || "/"}: ${i.message}`).join("; ")}`,
    { subject: file, issues },
  );
}

const inFolder = (dir: string, path: string) => (isAbsolute(path) ? path : resolve(dir, path));
const isFile = (ref: string) => ref.startsWith(".") || ref.startsWith("/") || /\.(ts|js|mjs|mts|cjs|cts)$/.test(ref);

/** A SQLite `file:` URL with a relative path made relative to `dir`; any other URL as given. */
function databaseIn(dir: string, url: string): string {
  if (!url.startsWith("file:") || url.startsWith("file:/")) return url;
  const [path, query] = url.slice("file:".length).split(/\?(.*)/s, 2);
  return `file:${resolve(dir, path)}${query ? `?${query}` : ""}`;
}

/**
 * The config file's settings as the environment variables they stand for (README's configuration table), paths
 * resolved against `dir`, the config file's folder. `!ENV NAME` API keys are read from `env` here; an unset one is
 * left out. The demo tools are off unless the file turns them on.
 */
export function projectEnv(c: ProjectConfig, dir: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const fromEnv = (ref: string | undefined) => (ref ? env[ENV_MARKER.exec(ref)![1]] : undefined);
  const out: Record<string, string | number | boolean | undefined> = {
    TAI_MODULES: c.modules?.map((m) => (isFile(m) ? inFolder(dir, m) : m)).join(","),
    TAI_EXTENSIONS_DIR: c.extensionsDir && inFolder(dir, c.extensionsDir),
    DATABASE_URL: c.database?.url && databaseIn(dir, c.database.url),
    REDIS_URL: c.redis?.url,
    TAI_REDIS_PREFIX: c.redis?.prefix,
    TAI_DEMO: c.demo ?? false,
    TAI_LLM_PROVIDER: c.providers?.default,
    TAI_LLM_BASE_URL: c.providers?.openaiCompatible?.baseUrl,
    TAI_LLM_MODEL: c.providers?.openaiCompatible?.model,
    TAI_LLM_API_KEY: fromEnv(c.providers?.openaiCompatible?.apiKey),
    TAI_ANTHROPIC_MODEL: c.providers?.anthropic?.model,
    ANTHROPIC_API_KEY: fromEnv(c.providers?.anthropic?.apiKey),
    TAI_MAX_IN_FLIGHT: c.limits?.maxInFlight,
    TAI_MAX_DB_WAIT_SECONDS: c.limits?.maxDbWaitSeconds,
    TAI_QUEUE_CONCURRENCY: c.limits?.queueConcurrency,
    TAI_DB_POOL: c.limits?.dbPool,
    TAI_MAX_BODY_BYTES: c.limits?.maxBodyBytes,
    TAI_SHUTDOWN_GRACE_SECONDS: c.limits?.shutdownGraceSeconds,
    PORT: c.server?.port,
    HOST: c.server?.host,
    TAI_PUBLIC_URL: c.server?.publicUrl,
    TAI_CORS_ORIGINS: c.server?.cors?.join(","),
    TAI_ANONYMOUS_ROLE: c.server?.anonymousRole,
    TAI_GRAPHIQL: c.server?.graphiql,
    TAI_IDENTITY: c.identity && JSON.stringify(c.identity),
  };
  return Object.fromEntries(
    Object.entries(out)
      .filter((e): e is [string, string | number | boolean] => e[1] !== undefined && e[1] !== "")
      .map(([k, v]) => [k, typeof v === "boolean" ? (v ? "1" : "0") : String(v)]),
  );
}
