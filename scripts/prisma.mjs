#!/usr/bin/env node
// Runs the Prisma CLI the only way it works on machines without Prisma's Rust binaries:
// the JS/WASM engines, with the binary-path variables pointing at a file that is never
// executed. Those variables are set for the child process only (STACK.md).
//
//   node scripts/prisma.mjs generate-all          derive the PostgreSQL schema, generate both clients
//   node scripts/prisma.mjs deploy                apply migrations to DATABASE_URL
//   node scripts/prisma.mjs new-migration NAME    write a migration for both providers
//   node scripts/prisma.mjs derive                only rewrite prisma/postgres/schema.prisma
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { mkdirSync, readFileSync, writeFileSync, existsSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// Resolved like any dependency: in a checkout it is under ./node_modules; in an installed
// tai42 npm hoists it beside tai42, into the user's node_modules.
const prismaCli = createRequire(import.meta.url).resolve("prisma/build/index.js");
const sqliteSchema = join(root, "prisma", "sqlite", "schema.prisma");
const postgresSchema = join(root, "prisma", "postgres", "schema.prisma");

/** The PostgreSQL schema text derived from the SQLite source of truth. */
export function derivePostgresSchema(source) {
  return source
    .replace('provider = "sqlite"', 'provider = "postgresql"')
    .replace('output       = "../../src/db/generated/sqlite"', 'output       = "../../src/db/generated/postgres"')
    .replace(
      "// The one model source.",
      "// GENERATED from prisma/sqlite/schema.prisma by `npm run db:generate`; do not edit.\n// The one model source.",
    );
}

export function providerOf(url) {
  if (!url || url.startsWith("file:")) return "sqlite";
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) return "postgres";
  throw new Error(`DATABASE_URL must start with file: or postgresql:// (got scheme "${url.split(":")[0]}")`);
}

// The WASM schema engine arms a 10 s timer while it takes PostgreSQL's migration lock
// and never clears it, so every PostgreSQL command would linger 10 s before exiting.
// Long timers are unref'd: while the engine really waits, its open query keeps the
// process alive; once the work is done, the stale timer no longer holds the exit.
const unrefLongTimers =
  "data:text/javascript," +
  encodeURIComponent(
    "const set = globalThis.setTimeout; globalThis.setTimeout = function (fn, ms, ...rest) { const t = set.call(this, fn, ms, ...rest); if (ms >= 5000) t?.unref?.(); return t; };",
  );

function prisma(args, env = {}) {
  const r = spawnSync(process.execPath, ["--import", unrefLongTimers, prismaCli, ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    env: {
      ...process.env,
      ...env,
      PRISMA_SCHEMA_ENGINE_BINARY: "/bin/false",
      PRISMA_QUERY_ENGINE_LIBRARY: "/bin/false",
      PRISMA_HIDE_UPDATE_MESSAGE: "1",
      CHECKPOINT_DISABLE: "1",
    },
  });
  return r;
}

function must(r, what) {
  if (r.status !== 0) {
    process.stderr.write(r.stdout ?? "");
    process.stderr.write(r.stderr ?? "");
    throw new Error(`prisma ${what} failed (exit ${r.status})`);
  }
  return r.stdout;
}

export function derive() {
  writeFileSync(postgresSchema, derivePostgresSchema(readFileSync(sqliteSchema, "utf8")));
}

export function generateAll() {
  derive();
  for (const p of ["sqlite", "postgres"])
    must(prisma(["generate", "--config", `prisma/${p}.config.ts`]), `generate (${p})`);
}

/** Applies pending migrations to `url`, creating the SQLite file's folder when needed. */
export function deploy(url = process.env.DATABASE_URL ?? "file:./data/tai42.db") {
  const provider = providerOf(url);
  if (provider === "sqlite") {
    const file = url.slice("file:".length).split("?")[0];
    mkdirSync(dirname(resolve(process.cwd(), file)), { recursive: true });
  }
  // The SQLite path in the URL is relative to the caller's working directory.
  const abs = provider === "sqlite" ? `file:${resolve(process.cwd(), url.slice(5).split("?")[0])}` : url;
  return must(
    prisma(["migrate", "deploy", "--config", `prisma/${provider}.config.ts`], { DATABASE_URL: abs }),
    `migrate deploy (${provider})`,
  );
}

/**
 * Writes a migration for both providers: the diff from the schema as last committed
 * (git HEAD) to the working schema. Datamodel-to-datamodel diffs need no database, which
 * matters because the JS schema engine cannot replay migrations into a SQLite shadow.
 */
function newMigration(name) {
  if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error("new-migration needs a snake_case NAME");
  derive();
  const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
  const prev = spawnSync("git", ["show", "HEAD:prisma/sqlite/schema.prisma"], { cwd: root, encoding: "utf8" });
  for (const p of ["sqlite", "postgres"]) {
    const dir = join(root, "prisma", p, "migrations");
    const has = existsSync(dir) && readdirSync(dir).some((d) => /^\d/.test(d));
    let from = ["--from-empty"];
    if (has) {
      if (prev.status !== 0)
        throw new Error("new-migration diffs against the committed schema (git HEAD); commit history is required");
      const prevFile = join(tmpdir(), `tai42-prev-${p}.prisma`);
      writeFileSync(prevFile, p === "sqlite" ? prev.stdout : derivePostgresSchema(prev.stdout));
      from = ["--from-schema-datamodel", prevFile];
    }
    const sql = must(
      prisma(
        [
          "migrate",
          "diff",
          "--config",
          `prisma/${p}.config.ts`,
          ...from,
          "--to-schema-datamodel",
          `prisma/${p}/schema.prisma`,
          "--script",
        ],
        {
          DATABASE_URL:
            p === "sqlite"
              ? "file:/tmp/tai42-diff.db"
              : (process.env.PG_DIFF_URL ?? "postgresql://postgres@127.0.0.1:5432/test"),
        },
      ),
      `migrate diff (${p})`,
    );
    if (!/\S/.test(sql.replace(/^--.*$/gm, ""))) {
      console.log(`${p}: no schema change; no migration written`);
      continue;
    }
    const out = join(dir, `${stamp}_${name}`);
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "migration.sql"), sql);
    if (!existsSync(join(dir, "migration_lock.toml")))
      writeFileSync(join(dir, "migration_lock.toml"), `provider = "${p === "sqlite" ? "sqlite" : "postgresql"}"\n`);
    console.log(`wrote ${out}/migration.sql`);
  }
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const [cmd, arg] = process.argv.slice(2);
  try {
    if (cmd === "generate-all") generateAll();
    else if (cmd === "derive") derive();
    else if (cmd === "deploy") process.stdout.write(deploy(arg));
    else if (cmd === "new-migration") newMigration(arg);
    else {
      const r = prisma(process.argv.slice(2));
      process.stdout.write(r.stdout ?? "");
      process.stderr.write(r.stderr ?? "");
      process.exit(r.status ?? 1);
    }
  } catch (e) {
    console.error(String(e.message ?? e));
    process.exit(1);
  }
}
