import type { Statement } from "better-sqlite3";
import type { SqliteDriver } from "../db/sqlite-driver.ts";
import type { JobResult, LogJob, WriteBatch } from "./jobs.ts";
import { attemptRow, eventRow, outcomeRow, runRow } from "./rows.ts";

// Times as Prisma's SQLite adapter writes them (ISO 8601, "+00:00" for "Z"), so that
// Prisma reads these rows back exactly like its own.
const time = (iso: string | null) => (iso === null ? null : new Date(iso).toISOString().replace("Z", "+00:00"));
const bool = (b: boolean) => (b ? 1 : 0);

/**
 * The run log on SQLite: each batch is one transaction on the connection Prisma's adapter
 * holds, every statement prepared once. A taken idempotency scope is not an error (the
 * insert does nothing); a job that fails for any other reason rolls its batch back, and
 * the batch is written again one job per transaction, so only that job's caller fails.
 */
export function sqliteLog(connection: () => Promise<SqliteDriver>): WriteBatch {
  let prepared: { driver: SqliteDriver; s: ReturnType<typeof statements> } | null = null;
  const write = async (jobs: readonly LogJob[]): Promise<JobResult[]> => {
    const driver = await connection();
    if (prepared?.driver !== driver) prepared = { driver, s: statements(driver) };
    const s = prepared.s;
    return driver.transaction(() => jobs.map((job) => writeJob(s, job)));
  };
  return write;
}

function statements({ database: db }: SqliteDriver) {
  const st = (sql: string) => db.prepare(sql);
  return {
    insertRun: st(
      `INSERT INTO "Run" ("id","tool","status","input","content","door","callerRole","callerKey","callerKeyId","tier","idempotencyScope","parentRunId","instanceId","policy","startedAt")
       VALUES (@id,@tool,@status,@input,@content,@door,@callerRole,@callerKey,@callerKeyId,@tier,@idempotencyScope,@parentRunId,@instanceId,@policy,@startedAt)
       ON CONFLICT ("idempotencyScope") DO NOTHING`,
    ),
    settleRun: st(
      `UPDATE "Run" SET "status"=@status,"content"=@content,"data"=@data,"details"=@details,"isError"=@isError,"errorKind"=@errorKind,"errorMessage"=@errorMessage,"terminate"=@terminate,"finishedAt"=@finishedAt
       WHERE "id"=@id AND "status"='RUNNING'`,
    ),
    insertAttempt: st(
      `INSERT INTO "Attempt" ("runId","number","startedAt","finishedAt","errorKind","errorMessage","waitSeconds")
       VALUES (@runId,@number,@startedAt,@finishedAt,@errorKind,@errorMessage,@waitSeconds)`,
    ),
    // A write statement, not a read followed by one: a deferred transaction whose first
    // statement reads cannot take the write lock after another process committed
    // (SQLITE_BUSY_SNAPSHOT, which busy_timeout does not wait out).
    insertAttemptIfRunning: st(
      `INSERT INTO "Attempt" ("runId","number","startedAt","finishedAt","errorKind","errorMessage","waitSeconds")
       SELECT @runId,@number,@startedAt,@finishedAt,@errorKind,@errorMessage,@waitSeconds WHERE EXISTS (SELECT 1 FROM "Run" WHERE "id"=@runId AND "status"='RUNNING')`,
    ),
    insertEvent: st(`INSERT INTO "RunEvent" ("runId","tool","type","snapshot","at") VALUES (@runId,@tool,@type,@snapshot,@at)`),
    // A write statement for the same reason as insertAttemptIfRunning.
    insertEventIfRunning: st(
      `INSERT INTO "RunEvent" ("runId","tool","type","snapshot","at")
       SELECT @runId,@tool,@type,@snapshot,@at WHERE EXISTS (SELECT 1 FROM "Run" WHERE "id"=@runId AND "status"='RUNNING')`,
    ),
    insertAgentEvent: st(`INSERT INTO "AgentEvent" ("runId","type","payload","at") VALUES (?,?,?,?)`),
    endAgentRun: st(`UPDATE "AgentRun" SET "status"=?,"final"=?,"checkpoint"=?,"finishedAt"=? WHERE "id"=? AND "status"='RUNNING'`),
  };
}

type Statements = ReturnType<typeof statements>;

function insertEvent(s: Statements, row: ReturnType<typeof eventRow>): number {
  return Number(s.insertEvent.run({ ...row, at: time(row.at) }).lastInsertRowid);
}

function insertAttempt(s: Statements, row: ReturnType<typeof attemptRow>): void {
  s.insertAttempt.run({ ...row, startedAt: time(row.startedAt), finishedAt: time(row.finishedAt) });
}

function writeJob(s: Statements, job: LogJob): JobResult {
  switch (job.kind) {
    case "start": {
      const row = runRow(job.run, job.scope, job.instanceId);
      // Only the idempotency scope can be taken (ids are random UUIDs): no row, no event.
      if (run(s.insertRun, { ...row, startedAt: time(row.startedAt) }) === 0) return null;
      return insertEvent(s, eventRow(job.run, "RUN_STARTED", job.at));
    }
    case "attempt": {
      // Only while the run is RUNNING: a run another instance failed keeps that first outcome.
      const row = attemptRow(job.run.id, job.attempt);
      if (run(s.insertAttemptIfRunning, { ...row, startedAt: time(row.startedAt), finishedAt: time(row.finishedAt) }) === 0) return null;
      return insertEvent(s, eventRow(job.run, "ATTEMPT_FAILED", job.at));
    }
    case "progress": {
      const info = s.insertEventIfRunning.run({ ...eventRow(job.run, "RUN_PROGRESS", job.at, job.progress), at: time(job.at) });
      return info.changes === 0 ? null : Number(info.lastInsertRowid);
    }
    case "finish": {
      const row = outcomeRow(job.run);
      if (run(s.settleRun, { ...row, isError: bool(row.isError), terminate: bool(row.terminate), finishedAt: time(row.finishedAt) }) === 0) return null;
      if (job.attempt) insertAttempt(s, attemptRow(job.run.id, job.attempt));
      return insertEvent(s, eventRow(job.run, job.type, job.at));
    }
    case "agentEvent":
      s.insertAgentEvent.run(job.runId, job.type, JSON.stringify(job.payload), time(new Date().toISOString()));
      return null;
    case "agentFinish":
      // Only while RUNNING: a run another instance already failed keeps that first outcome.
      if (run(s.endAgentRun, [job.status, JSON.stringify(job.payload), JSON.stringify(job.checkpoint ?? null), time(job.finishedAt), job.runId]) === 0) return null;
      s.insertAgentEvent.run(job.runId, job.type, JSON.stringify(job.payload), time(job.finishedAt));
      return 1;
  }
}

function run(statement: Statement, params: object | unknown[]): number {
  return (Array.isArray(params) ? statement.run(...params) : statement.run(params)).changes;
}
