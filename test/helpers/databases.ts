import { copyFileSync, mkdirSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import pg from "pg";
import { migrate } from "../../src/db/migrate.ts";

/**
 * Test databases. Several vitest runs may share this checkout and one PostgreSQL server
 * (helpers, CI retries), so everything a run creates is named after the vitest process
 * that owns it (`TAI_TEST_RUN`, set by global-setup.ts): a run never touches another's
 * files or databases, and a run that died is cleaned up by the next one.
 */

/** The id of the vitest run that owns the current process's databases. */
export function testRunId(): string {
  return process.env.TAI_TEST_RUN ?? String(process.pid);
}

/** This run's scratch folder (SQLite template and copies, temp files). */
export function testRunDir(): string {
  return resolve(".tmp", `run-${testRunId()}`);
}

/** The migrated SQLite database every SQLite test copies. */
export function sqliteTemplatePath(): string {
  return resolve(testRunDir(), "template.db");
}

/** This run's migrated PostgreSQL template; each test clones it. */
export function pgTemplateName(): string {
  return `tai42_tpl_${testRunId()}`;
}

/** Prefix of every PostgreSQL database this run clones. */
export function pgClonePrefix(): string {
  return `tai42_t_${testRunId()}_`;
}

/** The run id inside a test database name, for stale-run cleanup; null for foreign names. */
export function runIdOfDatabase(name: string): string | null {
  return /^tai42_(?:tpl|t)_(\d+)(?:_|$)/.exec(name)?.[1] ?? null;
}

/** Which database the storage-facing tests run on: TAI_TEST_DB=postgres selects PostgreSQL. */
export function testDbKind(): "sqlite" | "postgres" {
  return process.env.TAI_TEST_DB === "postgres" ? "postgres" : "sqlite";
}

/** The PostgreSQL server the tests use (127.0.0.1:5432 by default, trust auth). */
export function pgAdminUrl(db = process.env.TAI_TEST_PG_DB ?? "test"): string {
  const base = process.env.TAI_TEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432";
  return `${base}/${db}`;
}

/** The Redis server the tests use. */
export function redisTestUrl(): string {
  return process.env.TAI_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
}

export async function pgReachable(): Promise<boolean> {
  const c = new pg.Client({ connectionString: pgAdminUrl(), connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

/** Whether Redis answers PING at `url` within two seconds. */
export async function redisReachable(url = redisTestUrl()): Promise<boolean> {
  const { Redis } = await import("ioredis");
  const r = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  r.on("error", () => {});
  try {
    await r.connect();
    return (await r.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

/** Under CI=true an unreachable PostgreSQL is a failure, never a skip. */
export async function requirePostgres(): Promise<boolean> {
  if (await pgReachable()) return true;
  if (process.env.CI === "true")
    throw new Error(`PostgreSQL is required under CI=true but ${pgAdminUrl()} is unreachable`);
  return false;
}

/** Under CI=true an unreachable Redis is a failure, never a skip. */
export async function requireRedis(url = redisTestUrl()): Promise<boolean> {
  if (await redisReachable(url)) return true;
  if (process.env.CI === "true") throw new Error(`Redis is required under CI=true but ${url} is unreachable`);
  return false;
}

async function withPgAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: pgAdminUrl() });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

let templateReady: Promise<void> | null = null;

/**
 * Creates and migrates this run's PostgreSQL template once. Test files run in parallel
 * workers, so creation is serialized by an advisory lock on the server; a failed
 * migration drops the half-made template so the next caller retries.
 */
export function ensurePgTemplate(): Promise<void> {
  templateReady ??= withPgAdmin(async (c) => {
    const name = pgTemplateName();
    await c.query("SELECT pg_advisory_lock(hashtext($1))", [name]);
    try {
      const exists = await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
      if (exists.rowCount) return;
      await c.query(`CREATE DATABASE "${name}"`);
      try {
        await migrate(pgAdminUrl(name));
      } catch (e) {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        throw e;
      }
    } finally {
      await c.query("SELECT pg_advisory_unlock(hashtext($1))", [name]);
    }
  }).catch((e: unknown) => {
    templateReady = null;
    throw e;
  });
  return templateReady;
}

/** A fresh, migrated database URL for one test (a file copy, or a clone of the PG template). */
export async function freshDatabase(kind = testDbKind()): Promise<{ url: string; drop: () => Promise<void> }> {
  if (kind === "sqlite") {
    mkdirSync(testRunDir(), { recursive: true });
    const file = resolve(testRunDir(), `${randomUUID()}.db`);
    copyFileSync(sqliteTemplatePath(), file);
    return { url: `file:${file}`, drop: async () => {} };
  }
  await ensurePgTemplate();
  const name = `${pgClonePrefix()}${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  // CREATE DATABASE … TEMPLATE fails while another session is connected to the template;
  // only template creation connects to it, and that finished above, so retry briefly.
  for (let i = 0; ; i++) {
    try {
      await withPgAdmin((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${pgTemplateName()}"`));
      break;
    } catch (e) {
      if (i >= 20 || !/being accessed by other users/.test((e as Error).message)) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url: pgAdminUrl(name),
    drop: () => withPgAdmin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => {}),
  };
}

/** An empty (unmigrated) PostgreSQL database owned by this run, for code that migrates itself (`tai serve`). */
export async function emptyPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${pgClonePrefix()}${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  await withPgAdmin((c) => c.query(`CREATE DATABASE "${name}"`));
  return {
    url: pgAdminUrl(name),
    drop: () => withPgAdmin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => {}),
  };
}

/** Drops this run's PostgreSQL databases and those of runs whose process has died. */
export async function dropPgDatabases(which: "mine" | "stale"): Promise<void> {
  await withPgAdmin(async (c) => {
    const rows = (await c.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'tai42\\_t%'"))
      .rows;
    // Clones first: a template cannot be dropped while it is being copied.
    const names = rows
      .map((r) => r.datname)
      .sort((a, b) => Number(a.startsWith("tai42_tpl_")) - Number(b.startsWith("tai42_tpl_")));
    for (const name of names) {
      const owner = runIdOfDatabase(name);
      if (owner === null) continue;
      if (which === "mine" ? owner === testRunId() : owner !== testRunId() && !processAlive(Number(owner))) {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      }
    }
  });
}

/** Whether a process with this pid exists on this machine. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
