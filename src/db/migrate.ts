import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const script = join(root, "scripts", "prisma.mjs");
const sqliteMigrations = join(root, "prisma", "sqlite", "migrations");

/**
 * Whether every SQLite migration is already recorded as applied. Checked with a plain
 * read because `prisma migrate deploy` locks the file exclusively (locking_mode=EXCLUSIVE)
 * and so fails while a server, or any other process, has the database open.
 */
function sqliteUpToDate(file: string): boolean {
  if (!existsSync(file)) return false;
  const wanted = readdirSync(sqliteMigrations).filter((d) => existsSync(join(sqliteMigrations, d, "migration.sql")));
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const rows = db.prepare("SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL").all() as { migration_name: string }[];
    const applied = new Set(rows.map((r) => r.migration_name));
    return wanted.every((d) => applied.has(d));
  } catch {
    return false;
  } finally {
    db?.close();
  }
}

/**
 * Applies pending migrations to `url` through the Prisma CLI (JS/WASM schema engine).
 * The SQLite path is resolved against the current working directory.
 */
export function migrate(url: string): Promise<void> {
  const target = url.startsWith("file:") ? `file:${resolve(url.slice(5).split("?")[0])}` : url;
  if (target.startsWith("file:") && sqliteUpToDate(target.slice(5))) return Promise.resolve();
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [script, "deploy", target], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", fail);
    child.on("exit", (code) => (code === 0 ? ok() : fail(new Error(`database migration failed:\n${out.replace(/postgres(ql)?:\/\/[^\s"]+/g, "postgresql://…")}`))));
  });
}
