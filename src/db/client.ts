import { resolve } from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client.ts";
import { PrismaClient as PostgresClient } from "./generated/postgres/client.ts";

/**
 * The database handle every domain module uses. Both generated clients have the same
 * model API (one model source), so the SQLite client's type describes either.
 */
export type Db = SqliteClient;
export type DbProvider = "sqlite" | "postgres";

export function providerOf(url: string): DbProvider {
  if (url.startsWith("file:")) return "sqlite";
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) return "postgres";
  throw new Error(`DATABASE_URL must start with file: or postgresql:// (got scheme "${url.split(":")[0]}")`);
}

/** Opens the client for `url`: SQLite (WAL) or PostgreSQL, chosen by scheme. */
export async function openDb(url: string): Promise<{ db: Db; provider: DbProvider }> {
  const provider = providerOf(url);
  if (provider === "sqlite") {
    const file = resolve(url.slice("file:".length).split("?")[0]);
    const db = new SqliteClient({ adapter: new PrismaBetterSqlite3({ url: `file:${file}` }) });
    // WAL lets readers proceed during a write; busy_timeout makes writers queue, not fail.
    await db.$queryRawUnsafe("PRAGMA journal_mode = WAL");
    await db.$queryRawUnsafe("PRAGMA busy_timeout = 5000");
    await db.$queryRawUnsafe("PRAGMA synchronous = NORMAL");
    return { db, provider };
  }
  const db = new PostgresClient({ adapter: new PrismaPg({ connectionString: url, max: 10 }) }) as unknown as Db;
  return { db, provider };
}

/** Whether an error is a unique-constraint violation (Prisma P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "P2002";
}
