import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { connectCreating, pgTarget } from "./postgres-preflight.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const script = join(root, "scripts", "prisma.mjs");
const migrationsOf = (provider: "sqlite" | "postgres") => join(root, "prisma", provider, "migrations");

/** The migrations of `provider` shipped with this build, by folder name. */
function wantedMigrations(provider: "sqlite" | "postgres"): string[] {
  const dir = migrationsOf(provider);
  return readdirSync(dir).filter((d) => existsSync(join(dir, d, "migration.sql")));
}

const APPLIED =
  "SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL";

/**
 * Whether every SQLite migration is already recorded as applied. Checked with a plain
 * read because `prisma migrate deploy` locks the file exclusively (locking_mode=EXCLUSIVE)
 * and so fails while a server, or any other process, has the database open.
 */
function sqliteUpToDate(file: string): boolean {
  if (!existsSync(file)) return false;
  const wanted = wantedMigrations("sqlite");
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const rows = db.prepare(APPLIED).all() as { migration_name: string }[];
    const applied = new Set(rows.map((r) => r.migration_name));
    return wanted.every((d) => applied.has(d));
  } catch {
    return false;
  } finally {
    db?.close();
  }
}

/**
 * Whether every PostgreSQL migration is already recorded as applied: one read on one
 * connection, instead of starting the Prisma CLI (seconds) to find nothing to do. A
 * missing table answers "no", and `migrate deploy` decides. A missing database is created first; PostgreSQL out of
 * reach is one clear line (`postgres-preflight.ts`).
 */
async function postgresUpToDate(url: string): Promise<boolean> {
  const wanted = wantedMigrations("postgres");
  const client = await connectCreating(url);
  try {
    const { schema } = pgTarget(url);
    const table = schema ? `"${schema.replaceAll('"', '""')}"._prisma_migrations` : "_prisma_migrations";
    const { rows } = await client.query<{ migration_name: string }>(APPLIED.replace("_prisma_migrations", table));
    const applied = new Set(rows.map((r) => r.migration_name));
    return wanted.every((d) => applied.has(d));
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Applies pending migrations to `url` through the Prisma CLI (JS/WASM schema engine).
 * The SQLite path is resolved against the current working directory. When the database
 * is current, this costs one read and no child process.
 */
export async function migrate(url: string): Promise<void> {
  const target = url.startsWith("file:") ? `file:${resolve(url.slice(5).split("?")[0])}` : url;
  if (!target.startsWith("file:")) {
    // migrate deploy takes PostgreSQL's advisory lock itself: concurrent deploys queue there.
    if (!(await postgresUpToDate(target))) await deploy(target);
    return;
  }
  const file = target.slice(5);
  if (sqliteUpToDate(file)) return;
  const release = await sqliteMigrationLock(file);
  try {
    // Another process may have migrated while this one waited for the lock.
    if (!sqliteUpToDate(file)) await deploy(target);
  } finally {
    release();
  }
}

const LOCK_WAIT_MS = 120_000;
const LOCK_POLL_MS = 50;

/**
 * Serialises SQLite migrations across processes (two `tai` commands started at once on a
 * fresh project): an exclusive transaction on a sibling lock database, `<file>-migrate-lock`.
 * Without it the two `migrate deploy` runs deadlock on the database's own lock and one
 * fails (SQLITE_BUSY, reported by Prisma's engine as "unknown variant SocketTimeout").
 * SQLite's lock is an OS file lock: a process that dies while holding it releases it, so
 * no stale lock survives a crash. Waits without blocking the event loop.
 */
async function sqliteMigrationLock(file: string): Promise<() => void> {
  mkdirSync(dirname(file), { recursive: true });
  const lock = new Database(`${file}-migrate-lock`, { timeout: 0 });
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      lock.exec("BEGIN EXCLUSIVE");
      return () => {
        lock.exec("ROLLBACK");
        lock.close();
      };
    } catch (error) {
      const busy = (error as { code?: string }).code === "SQLITE_BUSY";
      if (!busy || Date.now() > deadline) {
        lock.close();
        const why = busy
          ? `another process held the migration lock of ${file} for ${LOCK_WAIT_MS / 1000} s`
          : `cannot take the migration lock of ${file}: ${(error as Error).message}`;
        throw new Error(`database migration failed: ${why}`, { cause: error });
      }
      await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
    }
  }
}

function deploy(target: string): Promise<void> {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [script, "deploy", target], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", fail);
    child.on("exit", (code) =>
      code === 0
        ? ok()
        : fail(new Error(`database migration failed:\n${out.replace(/postgres(ql)?:\/\/[^\s"]+/g, "postgresql://…")}`)),
    );
  });
}
