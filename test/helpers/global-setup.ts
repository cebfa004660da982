import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { migrate } from "../../src/db/migrate.ts";
import { buildIfStale } from "../../scripts/build.mjs";
import {
  dropPgDatabases,
  ensurePgTemplate,
  pgReachable,
  processAlive,
  requirePostgres,
  sqliteTemplatePath,
  testDbKind,
  testRunDir,
} from "./databases.ts";

/**
 * Rebuilds dist/ when the sources changed since it was built (the `tai` children run it).
 * Migrates this run's SQLite template (and, under TAI_TEST_DB=postgres, its PostgreSQL
 * template); each test copies or clones it. Everything is named after this vitest
 * process (`TAI_TEST_RUN`, inherited by the workers), so concurrent runs in the same
 * checkout or on the same server never delete each other's databases.
 */
export default async function setup(): Promise<() => Promise<void>> {
  // The tests that spawn `tai` run the compiled dist/: it must match the sources under test.
  buildIfStale();
  process.env.TAI_TEST_RUN = String(process.pid);
  const tmp = resolve(".tmp");
  mkdirSync(tmp, { recursive: true });
  for (const entry of readdirSync(tmp)) {
    const owner = /^run-(\d+)$/.exec(entry)?.[1];
    if (owner && Number(owner) !== process.pid && !processAlive(Number(owner)))
      rmSync(resolve(tmp, entry), { recursive: true, force: true });
  }
  rmSync(testRunDir(), { recursive: true, force: true });
  mkdirSync(testRunDir(), { recursive: true });
  await migrate(`file:${sqliteTemplatePath()}`);

  const usesPostgres = testDbKind() === "postgres" ? await requirePostgres() : await pgReachable();
  if (usesPostgres) {
    await dropPgDatabases("stale");
    if (testDbKind() === "postgres") await ensurePgTemplate();
  }

  return async () => {
    rmSync(testRunDir(), { recursive: true, force: true });
    if (usesPostgres) await dropPgDatabases("mine").catch(() => {});
  };
}
