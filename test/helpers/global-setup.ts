import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { migrate } from "../../src/db/migrate.ts";
import { pgAdminUrl, TEMPLATE_DB, testDbKind, requirePostgres } from "./databases.ts";
import pg from "pg";

/** Migrates one template database per run; each test copies it (SQLite) or clones it (PostgreSQL). */
export default async function setup(): Promise<void> {
  const dir = resolve(".tmp");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await migrate(`file:${resolve(dir, "template.db")}`);
  if (testDbKind() === "postgres") {
    await requirePostgres();
    const client = new pg.Client({ connectionString: pgAdminUrl() });
    await client.connect();
    const stale = await client.query("SELECT datname FROM pg_database WHERE datname LIKE 'tai42_t_%' OR datname = $1", [TEMPLATE_DB]);
    for (const r of stale.rows) await client.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${TEMPLATE_DB}"`);
    await client.end();
    await migrate(pgAdminUrl(TEMPLATE_DB));
  }
}
