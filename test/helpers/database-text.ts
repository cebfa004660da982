import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import pg from "pg";

/**
 * Every byte a database holds, for "this value is stored nowhere" checks: SQLite's files
 * (main, -wal, -shm) as read from disk, or PostgreSQL's plain-text dump (`pg_dump`; where
 * it is not installed, every row of every public table as JSON text).
 */
export async function databaseText(url: string): Promise<string> {
  if (url.startsWith("file:")) {
    const file = url.slice("file:".length).split("?")[0];
    return [file, `${file}-wal`, `${file}-shm`]
      .filter(existsSync)
      .map((f) => readFileSync(f).toString("latin1"))
      .join("\n");
  }
  const dump = spawnSync("pg_dump", ["--dbname", url.split("?")[0]], { encoding: "latin1", timeout: 30_000 });
  if (dump.status === 0) return dump.stdout;
  if ((dump.error as NodeJS.ErrnoException | undefined)?.code !== "ENOENT")
    throw new Error(`pg_dump failed: ${dump.stderr || dump.error?.message}`);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const tables = await c.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    const rows: string[] = [];
    for (const { table_name } of tables.rows)
      rows.push(
        ...(await c.query(`SELECT row_to_json(t)::text AS j FROM "${table_name}" t`)).rows.map((r) => r.j as string),
      );
    return rows.join("\n");
  } finally {
    await c.end();
  }
}
