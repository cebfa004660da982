import { resolve } from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client.ts";
import { PrismaClient as PostgresClient } from "./generated/postgres/client.ts";
import { capturingSqliteFactory, type SqliteDriver } from "./sqlite-driver.ts";
import { DB_WAIT_MS, TX } from "./contention.ts";

/**
 * The database handle every domain module uses. Both generated clients have the same
 * model API (one model source), so the SQLite client's type describes either.
 */
export type Db = SqliteClient;
export type DbProvider = "sqlite" | "postgres";

/**
 * The driver under Prisma's adapter, shared with it: what the run log's few hot-path
 * statements use (`src/runlog/`), prepared once. SQLite: the one connection Prisma's
 * adapter holds, entered through the adapter's own transaction lock. PostgreSQL: the
 * pool Prisma's adapter draws from.
 */
export type Driver = { kind: "sqlite"; connection: () => Promise<SqliteDriver> } | { kind: "postgres"; pool: pg.Pool };

export function providerOf(url: string): DbProvider {
  if (url.startsWith("file:")) return "sqlite";
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) return "postgres";
  throw new Error(`DATABASE_URL must start with file: or postgresql:// (got scheme "${url.split(":")[0]}")`);
}

/** Options of {@link openDb}. */
export interface OpenDbOptions {
  /** PostgreSQL connections this process may hold (TAI_DB_POOL; docs/deploy.md has the arithmetic). @default 10 */
  pool?: number;
  /**
   * Milliseconds a query waits for a pooled connection before it fails (typed UNAVAILABLE). @default DB_WAIT_MS (the
   * transactions' wait)
   */
  waitMs?: number;
}

/** Opens the client for `url`: SQLite (WAL) or PostgreSQL, chosen by scheme. */
export async function openDb(
  url: string,
  options: OpenDbOptions = {},
): Promise<{ db: Db; provider: DbProvider; driver: Driver }> {
  const provider = providerOf(url);
  if (provider === "sqlite") {
    const file = resolve(url.slice("file:".length).split("?")[0]);
    const { factory, driver } = capturingSqliteFactory(file);
    const db = new SqliteClient({ adapter: factory });
    // WAL lets readers proceed during a write; busy_timeout makes writers queue, not fail.
    await db.$queryRawUnsafe("PRAGMA journal_mode = WAL");
    await db.$queryRawUnsafe("PRAGMA busy_timeout = 5000");
    await db.$queryRawUnsafe("PRAGMA synchronous = NORMAL");
    // Deleted and overwritten cells are zeroed, not left in free pages: a value scrubbed
    // after it was stored (a late ctx.redact, src/runlog/rescrub.ts) leaves no bytes behind.
    await db.$queryRawUnsafe("PRAGMA secure_delete = ON");
    return { db, provider, driver: { kind: "sqlite", connection: driver } };
  }
  // A query waits for a connection as long as a transaction does (db/contention.ts), then
  // fails as a typed UNAVAILABLE rather than queueing without bound.
  const pool = new pg.Pool({
    connectionString: url,
    max: options.pool ?? 10,
    connectionTimeoutMillis: options.waitMs ?? DB_WAIT_MS,
    // A transaction whose client stopped talking (a frozen or partitioned instance) is ended by the server once it
    // has been idle as long as a transaction may last: it can hold rows, and a run-event writer's registration that
    // readers settling a gap wait out (docs/run-lifecycle.md §9), only that long.
    idle_in_transaction_session_timeout: TX.timeout,
  });
  // An idle pooled connection that dies (a database restart, a terminated backend) is
  // dropped by the pool; without a listener its 'error' event would end the process.
  pool.on("error", () => {});
  const db = new PostgresClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) }) as unknown as Db;
  return { db, provider, driver: { kind: "postgres", pool } };
}

/** Whether an error is a unique-constraint violation (Prisma P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "P2002";
}
