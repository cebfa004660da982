import Database from "better-sqlite3";
import { openDb } from "../../src/db/client.ts";
import { newRun, type RunRecord } from "../../src/dispatch/run-record.ts";
import { LogWriter } from "../../src/runlog/log-writer.ts";
import { Secrets } from "../../src/secrets/secrets.ts";
import { RunStore } from "../../src/dispatch/run-store.ts";
import type { ScratchDatabases } from "../lib/databases.ts";
import { round } from "../lib/percentiles.ts";
import { ECHO_TEXT } from "../lib/targets.ts";
import type { BenchSettings } from "../settings.ts";

/**
 * What the storage design costs a dispatch, measured without HTTP or GraphQL: the two
 * transactions every dispatch writes (run + RUN_STARTED, then outcome + RUN_FINISHED),
 * one after the other, through tai42's RunStore (the run log's writer: group commit,
 * statements prepared on the driver under Prisma's adapter, `src/runlog/`), against the
 * same two transactions as prepared statements on the raw better-sqlite3 driver: the
 * floor of SQLite itself. Microseconds per dispatch.
 */
export interface RunWritesResult {
  dispatches: number;
  /** tai42's RunStore.start + RunStore.finish, per database. */
  runStore: Record<string, { usPerDispatch: number }>;
  /** The same two SQLite transactions on the raw driver. */
  rawSqliteUsPerDispatch: number;
}

function echoRun(): RunRecord {
  return newRun({ tool: "echo", input: { text: ECHO_TEXT }, door: "graphql", callerRole: "USER", callerKey: "bench" });
}

async function timeEach(n: number, one: () => Promise<void> | void): Promise<number> {
  for (let i = 0; i < Math.min(100, n); i++) await one();
  const t = performance.now();
  for (let i = 0; i < n; i++) await one();
  return ((performance.now() - t) / n) * 1000;
}

async function runStoreCost(url: string, n: number): Promise<number> {
  const { db, driver } = await openDb(url);
  try {
    const runs = new RunStore(db, new LogWriter(driver, new Secrets()));
    return await timeEach(n, async () => {
      const run = echoRun();
      await runs.start(run, null, "bench");
      await runs.finish(
        {
          ...run,
          status: "SUCCEEDED",
          content: [{ type: "text", text: ECHO_TEXT }],
          finishedAt: new Date().toISOString(),
        },
        null,
      );
    });
  } finally {
    await db.$disconnect();
  }
}

function rawSqliteCost(file: string, n: number): Promise<number> {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  const insertRun = db.prepare(
    `INSERT INTO "Run" ("id","tool","status","input","content","door","callerRole","callerKey","instanceId","startedAt") VALUES (?,?,?,?,?,?,?,?,?,?)`,
  );
  const insertEvent = db.prepare(
    `INSERT INTO "RunEvent" ("runId","tool","type","at","snapshot") VALUES (?,?,?,?,?) RETURNING "seq"`,
  );
  const finishRun = db.prepare(
    `UPDATE "Run" SET "status" = ?, "content" = ?, "finishedAt" = ? WHERE "id" = ? AND "status" = 'RUNNING'`,
  );
  const start = db.transaction((run: RunRecord) => {
    insertRun.run(
      run.id,
      run.tool,
      run.status,
      JSON.stringify(run.input),
      "[]",
      run.door,
      run.callerRole,
      run.callerKey,
      "bench",
      run.startedAt,
    );
    return insertEvent.get(run.id, run.tool, "RUN_STARTED", run.startedAt, JSON.stringify(run));
  });
  const finish = db.transaction((run: RunRecord) => {
    if (finishRun.run(run.status, JSON.stringify(run.content), run.finishedAt, run.id).changes !== 1) return null;
    return insertEvent.get(run.id, run.tool, "RUN_FINISHED", run.finishedAt, JSON.stringify(run));
  });
  return timeEach(n, () => {
    const run = echoRun();
    start(run);
    finish({
      ...run,
      status: "SUCCEEDED",
      content: [{ type: "text", text: ECHO_TEXT }],
      finishedAt: new Date().toISOString(),
    });
  }).finally(() => db.close());
}

export async function runWritesScenario(
  settings: BenchSettings,
  dbs: ScratchDatabases,
  log: (line: string) => void,
): Promise<RunWritesResult> {
  const n = settings.writes.dispatches;
  const runStore: RunWritesResult["runStore"] = {};
  for (const kind of dbs.hasPostgres ? (["sqlite", "postgres"] as const) : (["sqlite"] as const)) {
    const db = await dbs.create(kind);
    try {
      runStore[kind] = { usPerDispatch: round(await runStoreCost(db.url, n), 0) };
    } finally {
      await db.drop();
    }
  }
  const raw = await dbs.create("sqlite");
  let rawUs: number;
  try {
    rawUs = round(await rawSqliteCost(raw.url.slice("file:".length), n), 0);
  } finally {
    await raw.drop();
  }
  log(
    `  run writes per dispatch: RunStore ${Object.entries(runStore)
      .map(([k, v]) => `${k} ${v.usPerDispatch} µs`)
      .join(", ")}; raw better-sqlite3 ${rawUs} µs`,
  );
  return { dispatches: n, runStore, rawSqliteUsPerDispatch: rawUs };
}
