import { GraphQLError } from "graphql";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { openDb, type Db } from "../../src/db/client.ts";
import { contentionError } from "../../src/db/contention.ts";
import { ApiError } from "../../src/errors.ts";
import { maskError } from "../../src/graphql/errors.ts";
import { createLogger } from "../../src/log.ts";
import { Secrets } from "../../src/secrets/secrets.ts";
import { freshDatabase, requirePostgres } from "../helpers/databases.ts";

/**
 * Contention and a busy database reach a client as typed, retryable errors
 * (docs/deploy.md §"Contention"): the real errors of Prisma, pg and SQLite are
 * recognised, and the GraphQL edge answers them with `extensions.code` and
 * `retryable: true` instead of a masked "Unexpected error.".
 */
const hasPostgres = await requirePostgres();

const codeOf = (e: unknown) => contentionError(e)?.code ?? null;

describe("contention errors", () => {
  const opened: Db[] = [];
  const drops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const db of opened.splice(0)) await db.$disconnect();
    for (const d of drops.splice(0)) await d();
  });

  async function postgres(pool: number, waitMs?: number): Promise<Db> {
    const fresh = await freshDatabase("postgres");
    drops.push(fresh.drop);
    const { db } = await openDb(fresh.url, { pool, waitMs });
    opened.push(db);
    return db;
  }

  it.skipIf(!hasPostgres)(
    "should type as UNAVAILABLE a transaction that waited past the pool's wait for a connection",
    async () => {
      const db = await postgres(1, 200);
      let release!: () => void;
      let holding!: () => void;
      const held = new Promise<void>((r) => (holding = r));
      const holder = db.$transaction(
        async (tx) => {
          await tx.$queryRawUnsafe("SELECT 1");
          holding();
          await new Promise<void>((r) => (release = r));
        },
        { timeout: 10_000 },
      );
      await held;
      const error = await db.$transaction(async (tx) => tx.$queryRawUnsafe("SELECT 1")).catch((e: unknown) => e);
      release();
      await holder;
      expect(error).toBeInstanceOf(Error);
      expect(contentionError(error)).toMatchObject({ code: "UNAVAILABLE", retryable: true });
    },
  );

  it.skipIf(!hasPostgres)(
    "should type as UNAVAILABLE a transaction that outlived its timeout (Prisma P2028)",
    async () => {
      const db = await postgres(2);
      const error = await db
        .$transaction(
          async (tx) => {
            await tx.$executeRawUnsafe("SELECT pg_sleep(0.3)");
            await tx.$queryRawUnsafe("SELECT 1");
          },
          { timeout: 100 },
        )
        .catch((e: unknown) => e);
      expect((error as { code?: string }).code).toBe("P2028");
      expect(contentionError(error)).toMatchObject({ code: "UNAVAILABLE", retryable: true });
    },
  );

  it.skipIf(!hasPostgres)("should type as CONFLICT the loser of a deadlock (PostgreSQL 40P01)", async () => {
    const db = await postgres(4);
    await db.kvEntry.createMany({
      data: [
        { key: "x", value: 0 },
        { key: "y", value: 0 },
      ],
    });
    let bothHoldOne!: () => void;
    const gate = new Promise<void>((r) => (bothHoldOne = r));
    let holding = 0;
    const crossing = (first: string, second: string) =>
      db.$transaction(
        async (tx) => {
          await tx.$executeRawUnsafe(`UPDATE "KvEntry" SET "value" = '1' WHERE "key" = '${first}'`);
          if (++holding === 2) bothHoldOne();
          await gate;
          await tx.$executeRawUnsafe(`UPDATE "KvEntry" SET "value" = '2' WHERE "key" = '${second}'`);
        },
        { timeout: 15_000 },
      );
    const results = await Promise.allSettled([crossing("x", "y"), crossing("y", "x")]);
    const lost = results.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason);
    expect(lost).toHaveLength(1);
    expect(contentionError(lost[0])).toMatchObject({ code: "CONFLICT", retryable: true });
  });

  it.skipIf(!hasPostgres)(
    "should type as UNAVAILABLE a query that found no pooled connection in time (pg's pool timeout)",
    async () => {
      const fresh = await freshDatabase("postgres");
      drops.push(fresh.drop);
      const pool = new pg.Pool({ connectionString: fresh.url, max: 1, connectionTimeoutMillis: 10_000 });
      const client = await pool.connect();
      // Short only once the one connection is held: on a loaded machine connecting alone can take longer.
      pool.options.connectionTimeoutMillis = 50;
      const error = await pool.query("SELECT 1").catch((e: unknown) => e);
      client.release();
      await pool.end();
      expect(codeOf(error)).toBe("UNAVAILABLE");
    },
  );

  it("should type as UNAVAILABLE a SQLite write that found the database locked", async () => {
    const fresh = await freshDatabase("sqlite");
    const { default: Database } = await import("better-sqlite3");
    const file = fresh.url.slice("file:".length);
    const holder = new Database(file);
    const other = new Database(file, { timeout: 0 });
    holder.exec("BEGIN IMMEDIATE");
    let error: unknown;
    try {
      other.exec(`INSERT INTO "KvEntry" ("key","value","updatedAt") VALUES ('k','1','2026-01-01')`);
    } catch (e) {
      error = e;
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
      other.close();
    }
    expect(codeOf(error)).toBe("UNAVAILABLE");
  });

  it("should leave every other error alone: a unique violation, a rejected request, a bug", () => {
    expect(contentionError(Object.assign(new Error("Unique constraint failed"), { code: "P2002" }))).toBeNull();
    expect(contentionError(new ApiError("CONFLICT", "stale version"))).toBeNull();
    expect(contentionError(new TypeError("x is not a function"))).toBeNull();
  });

  it("should answer a contention error at the GraphQL edge with its code and retryable: true, never masked", () => {
    const mask = maskError(
      createLogger({}, () => {}),
      new Secrets(),
    );
    const raw = Object.assign(new Error("Transaction API error: Unable to start a transaction in the given time."), {
      code: "P2028",
    });
    const masked = mask(
      new GraphQLError(raw.message, { originalError: raw, path: ["activateManifest"] }),
      "Unexpected error.",
    ) as GraphQLError;
    expect(masked.message).toMatch(/busy or out of reach.*send the request again/);
    expect(masked.extensions).toEqual({ code: "UNAVAILABLE", retryable: true });
    expect(masked.path).toEqual(["activateManifest"]);
    const bug = mask(
      new GraphQLError("boom", { originalError: new TypeError("boom") }),
      "Unexpected error.",
    ) as GraphQLError;
    expect(bug.extensions).toEqual({ code: "INTERNAL_SERVER_ERROR" });
  });
});
