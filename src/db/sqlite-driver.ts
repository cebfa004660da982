import type Database from "better-sqlite3";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";

/**
 * The SQLite connection under Prisma's better-sqlite3 adapter, for the run log's
 * hot-path statements (`src/runlog/sqlite-log.ts`).
 *
 * The adapter has one connection and a lock it takes for Prisma's transactions.
 * {@link SqliteDriver.transaction} never runs inside, or interleaves with, an interactive
 * transaction of Prisma's: when one is open it waits for the adapter's lock; the batch
 * itself is synchronous from BEGIN to COMMIT.
 */
export interface SqliteDriver {
  /** The connection (better-sqlite3), for preparing statements once. */
  readonly database: Database.Database;
  /** Runs `work` synchronously inside BEGIN … COMMIT (ROLLBACK when it throws), under the adapter's lock. */
  transaction<T>(work: () => T): Promise<T>;
}

interface Adapter {
  client: Database.Database;
  startTransaction(): Promise<{ commit(): Promise<void>; rollback(): Promise<void> }>;
}

/**
 * A Prisma adapter factory for `file` that remembers the adapter Prisma connects, so
 * {@link SqliteDriver} can share its connection. Prisma connects lazily (and again after
 * a `$disconnect`): the driver reads the adapter of the latest connection.
 */
export function capturingSqliteFactory(file: string): {
  factory: PrismaBetterSqlite3;
  driver: () => Promise<SqliteDriver>;
} {
  const inner = new PrismaBetterSqlite3({ url: `file:${file}` });
  let current: { adapter: Adapter; driver: SqliteDriver } | null = null;
  const factory = Object.create(inner) as PrismaBetterSqlite3;
  factory.connect = async () => {
    const adapter = (await inner.connect()) as unknown as Adapter;
    current = { adapter, driver: driverOver(adapter) };
    return adapter as never;
  };
  return {
    factory,
    driver: async () => {
      if (!current) throw new Error("the SQLite database is not connected yet");
      return current.driver;
    },
  };
}

function driverOver(adapter: Adapter): SqliteDriver {
  const database = adapter.client;
  const begin = database.prepare("BEGIN");
  const commit = database.prepare("COMMIT");
  const rollback = database.prepare("ROLLBACK");
  const inOwnTransaction = <T>(work: () => T): T => {
    begin.run();
    try {
      const result = work();
      commit.run();
      return result;
    } catch (e) {
      if (database.inTransaction) rollback.run();
      throw e;
    }
  };
  return {
    database,
    async transaction<T>(work: () => T): Promise<T> {
      // No transaction of Prisma's is open on the connection: BEGIN … COMMIT runs
      // synchronously, so none can start in between. (Prisma's adapter takes its lock and
      // runs BEGIN in one synchronous step, and releases it only after its COMMIT.)
      if (!database.inTransaction) return inOwnTransaction(work);
      // One is open: wait for it through the adapter's own lock. Its transaction object
      // only releases the lock: Prisma's engine sends COMMIT itself, so this does too.
      const tx = await adapter.startTransaction();
      let result: T;
      try {
        result = work();
        commit.run();
      } catch (e) {
        if (database.inTransaction) rollback.run();
        await tx.rollback();
        throw e;
      }
      await tx.commit();
      return result;
    },
  };
}
