import type { Statement } from "better-sqlite3";
import type { Db, Driver } from "../db/client.ts";
import { rethrowContention, TX } from "../db/contention.ts";

/** A transaction client (what `$transaction(fn)` hands its callback). */
export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/**
 * Writes what the tool surface is built from (presets, manifests, skills) and bumps the
 * stored surface version in the same transaction. The bump comes first: its row lock
 * serialises every configuration write on PostgreSQL until commit (so two activations
 * can never both see the other's manifest inactive), and SQLite has one writer anyway.
 * Contention and a busy database leave as typed, retryable API errors
 * (`db/contention.ts`); errors thrown by `write` leave as they are.
 */
export async function writeSurface<T>(db: Db, write: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    return await db.$transaction(async (tx) => {
      await bump(tx);
      return write(tx);
    }, TX);
  } catch (e) {
    rethrowContention(e);
  }
}

async function bump(tx: Tx): Promise<void> {
  // One UPDATE, never a read first: on SQLite a transaction that reads before it writes
  // cannot take the write lock once another process committed (SQLITE_BUSY_SNAPSHOT).
  const { count } = await tx.surfaceVersion.updateMany({ where: { id: 1 }, data: { version: { increment: 1 } } });
  // The migration makes the row; a database restored without it gets it back here.
  if (count === 0) await tx.surfaceVersion.create({ data: { id: 1, version: 1 } });
}

/** The stored surface version (0 before any configuration write). */
export async function readSurfaceVersion(db: Db): Promise<number> {
  return (await db.surfaceVersion.findUnique({ where: { id: 1 }, select: { version: true } }))?.version ?? 0;
}

/**
 * The stored surface version read on the run log's driver (`db/client.ts` {@link Driver}) rather than through Prisma:
 * what every dispatch's version check uses (`dispatch/resolve-entry.ts`). PostgreSQL: one prepared statement on the
 * pool. SQLite: one statement, synchronous, under the adapter's transaction lock (so it never reads an open
 * transaction's uncommitted bump on the shared connection).
 */
export function versionReader(driver: Driver): () => Promise<number> {
  const sql = `SELECT "version" FROM "SurfaceVersion" WHERE "id" = 1`;
  if (driver.kind === "postgres")
    return async () => {
      const { rows } = await driver.pool.query<{ version: number }>({ name: "tai42_surface_version", text: sql });
      return rows[0]?.version ?? 0;
    };
  let prepared: { database: unknown; statement: Statement } | null = null;
  return async () => {
    const connection = await driver.connection();
    if (prepared?.database !== connection.database)
      prepared = { database: connection.database, statement: connection.database.prepare(sql) };
    const { statement } = prepared;
    // The adapter's connection reads integers as bigint.
    const row = await connection.transaction(() => statement.get() as { version: number | bigint } | undefined);
    return Number(row?.version ?? 0);
  };
}
