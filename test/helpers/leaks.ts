import { existsSync, readFileSync } from "node:fs";
import pg from "pg";

/** Every text value of every table, as PostgreSQL or the SQLite files (incl. WAL) hold them. */
export async function databaseText(url: string): Promise<string> {
  if (url.startsWith("file:")) {
    const file = url.slice("file:".length).split("?")[0];
    return [file, `${file}-wal`, `${file}-shm`]
      .filter(existsSync)
      .map((f) => readFileSync(f).toString("latin1"))
      .join("\n");
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const tables = await c.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'");
    const rows = [];
    for (const { table_name } of tables.rows) rows.push(...(await c.query(`SELECT row_to_json(t)::text AS j FROM "${table_name}" t`)).rows.map((r) => r.j as string));
    return rows.join("\n");
  } finally {
    await c.end();
  }
}

/** Every run of base64 or base64url characters left in `text` around "[redacted]", decoded at each of the 4 character offsets. */
export function decodedBase64Runs(text: string): string[] {
  const runs = text.split("[redacted]").flatMap((piece) => piece.match(/[A-Za-z0-9+/_-]{4,}/g) ?? []);
  return runs.flatMap((run) => [0, 1, 2, 3].map((off) => Buffer.from(run.slice(off).replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("latin1")));
}
