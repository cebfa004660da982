import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without type declarations
import { derivePostgresSchema } from "../../scripts/prisma.mjs";
import { freshDatabase, requirePostgres } from "../helpers/databases.ts";

const root = resolve(import.meta.dirname, "..", "..");
const read = (path: string) => readFileSync(join(root, path), "utf8");

/** Runs `node scripts/prisma.mjs …` (the JS/WASM engines, as every package script does). */
function prismaCli(
  args: string[],
  databaseUrl: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(root, "scripts", "prisma.mjs"), ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 25_000);
    child.on("error", fail);
    child.on("exit", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/**
 * The differences between a live database and the Prisma schema, as Prisma's own
 * `migrate diff` summary, or "" when there are none.
 *
 * With the JS engines, `migrate diff` refuses `--from-url` and `--from-schema-datasource`,
 * and `--from-migrations` fails on both providers (SQLite's shadow database gets the
 * multi-statement migration through `executeRaw`, which better-sqlite3 refuses; PostgreSQL
 * trips the adapter's missing `"char"` type). So the database is introspected with
 * `db pull --print` and that datamodel is diffed against the schema file.
 */
async function driftOf(provider: "sqlite" | "postgres", databaseUrl: string): Promise<string> {
  const pulled = await prismaCli(
    ["db", "pull", "--print", "--config", `test/storage/fixtures/introspect-${provider}.config.ts`],
    databaseUrl,
  );
  if (pulled.code !== 0) throw new Error(`db pull (${provider}) failed:\n${pulled.stdout}\n${pulled.stderr}`);
  // The CLI prints a driver-adapter warning on stdout before the schema itself.
  const start = pulled.stdout.search(/^(generator|datasource|model) /m);
  expect(start, `db pull (${provider}) printed no schema:\n${pulled.stdout}`).toBeGreaterThanOrEqual(0);
  const dir = mkdtempSync(join(tmpdir(), "tai42-drift-"));
  try {
    const live = join(dir, "live.prisma");
    writeFileSync(live, pulled.stdout.slice(start));
    const diff = await prismaCli(
      [
        "migrate",
        "diff",
        "--config",
        `prisma/${provider}.config.ts`,
        "--from-schema-datamodel",
        live,
        "--to-schema-datamodel",
        `prisma/${provider}/schema.prisma`,
        "--exit-code",
      ],
      databaseUrl,
    );
    if (diff.code === 0) {
      expect(diff.stdout).toContain("No difference detected");
      return "";
    }
    if (diff.code === 2) return diff.stdout.trim();
    throw new Error(`migrate diff (${provider}) failed (exit ${diff.code}):\n${diff.stdout}\n${diff.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const migrationNames = (provider: string) =>
  readdirSync(join(root, "prisma", provider, "migrations"), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();

describe("the Prisma schemas and migrations", () => {
  it("should keep prisma/postgres/schema.prisma generated from the SQLite source", () => {
    const expected = derivePostgresSchema(read("prisma/sqlite/schema.prisma"));
    expect(
      read("prisma/postgres/schema.prisma") === expected,
      "prisma/postgres/schema.prisma drifted from prisma/sqlite/schema.prisma: run `npm run db:generate`",
    ).toBe(true);
  });

  it("should swap only the provider and the client output between the two schemas", () => {
    const pg = read("prisma/postgres/schema.prisma");
    expect(pg).toContain('provider = "postgresql"');
    expect(pg).toContain("src/db/generated/postgres");
    expect(pg).not.toContain('provider = "sqlite"');
  });

  it("should have the same migration names for SQLite and PostgreSQL", () => {
    const sqlite = migrationNames("sqlite");
    expect(sqlite.length).toBeGreaterThan(0);
    expect(
      migrationNames("postgres"),
      "every migration needs both providers: create it with `npm run db:migration NAME`",
    ).toEqual(sqlite);
  });

  it("should lock each migrations folder to its own provider", () => {
    expect(read("prisma/sqlite/migrations/migration_lock.toml")).toContain('provider = "sqlite"');
    expect(read("prisma/postgres/migrations/migration_lock.toml")).toContain('provider = "postgresql"');
  });

  it("should leave no drift between the migrated databases and the schema", async () => {
    const sqlite = await freshDatabase("sqlite");
    const checks: Promise<[string, string]>[] = [driftOf("sqlite", sqlite.url).then((d) => ["sqlite", d])];
    const pg = (await requirePostgres()) ? await freshDatabase("postgres") : null;
    if (pg) checks.push(driftOf("postgres", pg.url).then((d) => ["postgres", d]));
    try {
      for (const [provider, drift] of await Promise.all(checks)) {
        expect(
          drift,
          `the migrated ${provider} database differs from prisma/${provider}/schema.prisma; add a migration with \`npm run db:migration NAME\`:\n${drift}`,
        ).toBe("");
      }
    } finally {
      await sqlite.drop();
      await pg?.drop();
    }
  }, 60_000);
});
