import { copyFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import pg from "pg";

export const TEMPLATE_DB = "tai42_template";

/** Which database the storage-facing tests run on: TAI_TEST_DB=postgres selects PostgreSQL. */
export function testDbKind(): "sqlite" | "postgres" {
  return process.env.TAI_TEST_DB === "postgres" ? "postgres" : "sqlite";
}

/** The PostgreSQL server the tests use (127.0.0.1:5432 by default, trust auth). */
export function pgAdminUrl(db = process.env.TAI_TEST_PG_DB ?? "test"): string {
  const base = process.env.TAI_TEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432";
  return `${base}/${db}`;
}

export async function pgReachable(): Promise<boolean> {
  const c = new pg.Client({ connectionString: pgAdminUrl(), connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

/** Under CI=true an unreachable PostgreSQL is a failure, never a skip. */
export async function requirePostgres(): Promise<boolean> {
  if (await pgReachable()) return true;
  if (process.env.CI === "true") throw new Error(`PostgreSQL is required under CI=true but ${pgAdminUrl()} is unreachable`);
  return false;
}

/** A fresh, migrated database URL for one test (a file copy, or a clone of the PG template). */
export async function freshDatabase(kind = testDbKind()): Promise<{ url: string; drop: () => Promise<void> }> {
  if (kind === "sqlite") {
    const file = resolve(".tmp", `${randomUUID()}.db`);
    copyFileSync(resolve(".tmp", "template.db"), file);
    return { url: `file:${file}`, drop: async () => {} };
  }
  const name = `tai42_t_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
  const c = new pg.Client({ connectionString: pgAdminUrl() });
  await c.connect();
  await c.query(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE_DB}"`);
  await c.end();
  return {
    url: pgAdminUrl(name),
    drop: async () => {
      const d = new pg.Client({ connectionString: pgAdminUrl() });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await d.end();
    },
  };
}
