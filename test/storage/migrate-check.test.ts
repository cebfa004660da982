import * as childProcess from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { migrate } from "../../src/db/migrate.ts";
import { emptyPostgresDatabase, pgAdminUrl, requirePostgres, testRunDir } from "../helpers/databases.ts";

// Every Prisma CLI run is a child process: counting spawns counts `migrate deploy` runs.
vi.mock("node:child_process", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:child_process")>();
  return { ...actual, spawn: vi.fn(actual.spawn) };
});

const hasPostgres = await requirePostgres();
const MIGRATIONS = fileURLToPath(new URL("../../prisma/sqlite/migrations", import.meta.url));
const SQLITE_MIGRATIONS = readdirSync(MIGRATIONS).filter((d) =>
  existsSync(join(MIGRATIONS, d, "migration.sql")),
).length;

afterEach(() => {
  vi.mocked(childProcess.spawn).mockClear();
  vi.restoreAllMocks();
});

describe("the migration check at start", () => {
  it("should migrate an empty SQLite database through the Prisma CLI, then find it current with one read and no child process", async () => {
    const url = `file:${join(testRunDir(), `migrate-check-${process.pid}-${Date.now()}.db`)}`;
    await migrate(url);
    expect(childProcess.spawn).toHaveBeenCalledTimes(1);

    vi.mocked(childProcess.spawn).mockClear();
    const prepare = vi.spyOn(Database.prototype, "prepare");
    await migrate(url);
    expect(childProcess.spawn).not.toHaveBeenCalled();
    expect(prepare).toHaveBeenCalledTimes(1);
  }, 120_000);

  it("should let two migrations of one fresh SQLite database started at once both succeed, the second finding the first's work and running no migrate deploy", async () => {
    const url = `file:${join(testRunDir(), `migrate-twice-${process.pid}-${Date.now()}.db`)}`;
    await Promise.all([migrate(url), migrate(url)]);
    expect(childProcess.spawn).toHaveBeenCalledTimes(1);
    const db = new Database(url.slice(5), { readonly: true });
    try {
      expect(db.prepare("SELECT count(*) AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL").get()).toEqual({
        n: SQLITE_MIGRATIONS,
      });
    } finally {
      db.close();
    }
  }, 120_000);

  it.skipIf(!hasPostgres)(
    "should migrate an empty PostgreSQL database through the Prisma CLI, then find it current with one read and no child process",
    async () => {
      const db = await emptyPostgresDatabase();
      try {
        await migrate(db.url);
        expect(childProcess.spawn).toHaveBeenCalledTimes(1);

        vi.mocked(childProcess.spawn).mockClear();
        const connect = vi.spyOn(pg.Client.prototype, "connect");
        const query = vi.spyOn(pg.Client.prototype, "query");
        await migrate(db.url);
        expect(childProcess.spawn).not.toHaveBeenCalled();
        expect(connect).toHaveBeenCalledTimes(1);
        expect(query).toHaveBeenCalledTimes(1);
      } finally {
        await db.drop();
      }
    },
    120_000,
  );

  it("should refuse an unreachable PostgreSQL server in one line naming where, no password and no migrate deploy", async () => {
    const error = (await migrate("postgresql://tai:s3cret-pass@127.0.0.1:1/none").catch((e: unknown) => e)) as Error;
    expect(error.message).toBe(
      'cannot connect to PostgreSQL database "none" at 127.0.0.1:1: nothing listens there (is PostgreSQL running?) (DATABASE_URL)',
    );
    expect(childProcess.spawn).not.toHaveBeenCalled();
  }, 120_000);

  it.skipIf(!hasPostgres)(
    "should create a PostgreSQL database that does not exist yet and migrate it, twice at once without a failure",
    async () => {
      const name = `tai42_tmissing_${process.pid}_${Date.now()}`;
      const url = new URL(pgAdminUrl());
      url.pathname = `/${name}`;
      try {
        await Promise.all([migrate(url.href), migrate(url.href)]);
        const c = new pg.Client({ connectionString: url.href });
        await c.connect();
        const { rows } = await c.query<{ n: string }>("SELECT count(*) AS n FROM _prisma_migrations");
        await c.end();
        expect(Number(rows[0].n)).toBeGreaterThan(0);
      } finally {
        const admin = new pg.Client({ connectionString: pgAdminUrl() });
        await admin.connect();
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await admin.end();
      }
    },
    180_000,
  );
});
