import type { Db } from "../../src/db/client.ts";

/**
 * A real full SQLite database, not a mock: `PRAGMA max_page_count` caps the file at the
 * pages it has, and a filler table takes every free page, so any write that needs a new
 * page fails in the engine itself with SQLITE_FULL ("database or disk is full"), as on a
 * full disk. The cap holds for the connection it is set on: the one Prisma's adapter and
 * the run log share.
 */
export async function fillSqlite(db: Db): Promise<void> {
  await db.$executeRawUnsafe('CREATE TABLE IF NOT EXISTS "test_filler" ("x" BLOB)');
  const [{ page_count }] = await db.$queryRawUnsafe<{ page_count: bigint }[]>("PRAGMA page_count");
  await db.$queryRawUnsafe(`PRAGMA max_page_count = ${Number(page_count)}`);
  for (let i = 0; i < 10_000; i++) {
    try {
      await db.$executeRawUnsafe('INSERT INTO "test_filler" VALUES (randomblob(500))');
    } catch (e) {
      if (/SQLITE_FULL/.test(String((e as Error).message))) return;
      throw e;
    }
  }
  throw new Error("the SQLite database never filled up");
}

/** Space returns: the cap is lifted. */
export async function freeSqlite(db: Db): Promise<void> {
  await db.$queryRawUnsafe("PRAGMA max_page_count = 1073741823");
}
