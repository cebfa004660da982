import type { Statement } from "better-sqlite3";
import type { SqliteDriver } from "../db/sqlite-driver.ts";

type Row = Record<string, unknown>;

const JSON_COLUMNS = ["input", "content", "data", "details", "policy"] as const;
const prepared = new WeakMap<SqliteDriver, { run: Statement; attempts: Statement }>();

const date = (v: unknown) => (v === null || v === undefined ? null : new Date(typeof v === "string" ? v : Number(v)));

/**
 * Run `id` with its attempts (by number), read on SQLite's one connection with two statements prepared once, and in
 * the shape Prisma reads it (JSON parsed, times as Dates, flags as booleans); null when it is not stored. What a
 * queued run's claim reads (docs/run-lifecycle.md §11.2), without Prisma's query engine on the path of every
 * background run.
 */
export function readRun(driver: SqliteDriver, id: string): Row | null {
  let s = prepared.get(driver);
  if (!s) {
    // Plain numbers: Prisma's adapter reads integers as BigInts on this connection; Prisma itself answers numbers.
    s = {
      run: driver.database.prepare(`SELECT * FROM "Run" WHERE "id"=?`).safeIntegers(false),
      attempts: driver.database
        .prepare(`SELECT * FROM "Attempt" WHERE "runId"=? ORDER BY "number"`)
        .safeIntegers(false),
    };
    prepared.set(driver, s);
  }
  const row = s.run.get(id) as Row | undefined;
  if (!row) return null;
  for (const c of JSON_COLUMNS) row[c] = typeof row[c] === "string" ? JSON.parse(row[c]) : null;
  for (const c of ["isError", "terminate", "replayable", "syncWait"]) row[c] = Boolean(row[c]);
  row.startedAt = date(row.startedAt);
  row.finishedAt = date(row.finishedAt);
  row.attempts = (s.attempts.all(id) as Row[]).map((a) => ({
    ...a,
    startedAt: date(a.startedAt),
    finishedAt: date(a.finishedAt),
  }));
  return row;
}
