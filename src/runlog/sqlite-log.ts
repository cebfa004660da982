import type { Statement } from "better-sqlite3";
import type { SqliteDriver } from "../db/sqlite-driver.ts";
import { startEventType, type JobResult, type LogJob, type WriteBatch } from "./jobs.ts";
import type { Scrubber } from "../secrets/secrets.ts";
import { rescrubbed, rewriteCount } from "./rescrub.ts";
import { attemptRow, eventRow, outcomeRow, runRow } from "./rows.ts";
import { walCheckpoints } from "./wal-checkpoint.ts";

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
export function sqliteLog(connection: () => Promise<SqliteDriver>, owner: string | null = null): WriteBatch {
  let prepared: { driver: SqliteDriver; s: ReturnType<typeof statements>; checkpoint: () => void } | null = null;
  const write = async (jobs: readonly LogJob[]): Promise<JobResult[]> => {
    const driver = await connection();
    if (prepared?.driver !== driver)
      prepared = { driver, s: statements(driver), checkpoint: walCheckpoints(driver.database) };
    const { s, checkpoint } = prepared;
    // A rescrub whose run's outcome (carrying its own) is in the same batch is left to it: one transaction either way.
    const settling = new Set(jobs.flatMap((j) => (j.kind === "finish" && j.rescrub ? [j.run.id] : [])));
    const rewrote = { rows: 0, settling };
    const results = await driver.transaction(() => jobs.map((job) => writeJob(s, job, rewrote, owner)));
    // Rows rewritten by a rescrub leave their old bytes in the WAL until it is checkpointed.
    if (rewrote.rows) checkpoint();
    return results;
  };
  return write;
}

function statements({ database: db }: SqliteDriver) {
  const st = (sql: string) => db.prepare(sql);
  return {
    insertRun: st(
      `INSERT INTO "Run" ("id","tool","status","input","content","door","callerRole","callerKey","callerKeyId","tier","idempotencyScope","parentRunId","instanceId","policy","startedAt","idempotencyKey","timeoutSeconds","replayable","details","syncWait")
       VALUES (@id,@tool,@status,@input,@content,@door,@callerRole,@callerKey,@callerKeyId,@tier,@idempotencyScope,@parentRunId,@instanceId,@policy,@startedAt,@idempotencyKey,@timeoutSeconds,@replayable,@details,@syncWait)
       ON CONFLICT ("idempotencyScope") DO NOTHING`,
    ),
    settleRun: st(
      `UPDATE "Run" SET "status"=@status,"content"=@content,"data"=@data,"details"=@details,"isError"=@isError,"errorKind"=@errorKind,"errorMessage"=@errorMessage,"terminate"=@terminate,"finishedAt"=@finishedAt
       WHERE "id"=@id AND "status"='RUNNING' AND (@owner IS NULL OR "instanceId"=@owner)`,
    ),
    // The claim of a QUEUED run (docs/run-lifecycle.md §11.2): one claimant changes the row, the others none. A
    // synchronous waiter's wait (its flag, its `details.waitingFor`) ends with it.
    claimRun: st(
      `UPDATE "Run" SET "status"='RUNNING',"instanceId"=@instanceId,"details"=CASE WHEN "syncWait" THEN NULL ELSE "details" END,"syncWait"=0
       WHERE "id"=@id AND "status"='QUEUED'`,
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
       SELECT @runId,@number,@startedAt,@finishedAt,@errorKind,@errorMessage,@waitSeconds WHERE EXISTS (SELECT 1 FROM "Run" WHERE "id"=@runId AND "status"='RUNNING' AND (@owner IS NULL OR "instanceId"=@owner))`,
    ),
    insertEvent: st(
      `INSERT INTO "RunEvent" ("runId","tool","type","snapshot","at") VALUES (@runId,@tool,@type,@snapshot,@at)`,
    ),
    // A write statement for the same reason as insertAttemptIfRunning.
    insertEventIfRunning: st(
      `INSERT INTO "RunEvent" ("runId","tool","type","snapshot","at")
       SELECT @runId,@tool,@type,@snapshot,@at WHERE EXISTS (SELECT 1 FROM "Run" WHERE "id"=@runId AND "status"='RUNNING' AND (@owner IS NULL OR "instanceId"=@owner))`,
    ),
    // A rescrub's first statement writes (see insertAttemptIfRunning): it takes the write lock before it reads.
    touchRun: st(`UPDATE "Run" SET "status"="status" WHERE "id"=?`),
    runValues: st(`SELECT "input","content","data","details","errorMessage" FROM "Run" WHERE "id"=?`),
    eventSnapshots: st(`SELECT "seq","snapshot" FROM "RunEvent" WHERE "runId"=?`),
    attemptMessages: st(`SELECT "id","errorMessage" FROM "Attempt" WHERE "runId"=?`),
    rewriteRun: st(
      `UPDATE "Run" SET "input"=@input,"content"=@content,"data"=@data,"details"=@details,"errorMessage"=@errorMessage WHERE "id"=@id`,
    ),
    rewriteEvent: st(`UPDATE "RunEvent" SET "snapshot"=? WHERE "seq"=?`),
    rewriteAttempt: st(`UPDATE "Attempt" SET "errorMessage"=? WHERE "id"=?`),
    interactionQuestions: st(`SELECT "id","question" FROM "Interaction" WHERE "runId"=?`),
    rewriteQuestion: st(`UPDATE "Interaction" SET "question"=? WHERE "id"=?`),
    insertAgentEvent: st(`INSERT INTO "AgentEvent" ("runId","type","payload","at") VALUES (?,?,?,?)`),
    // Owner fencing (docs/agent-stream.md §4.3): an owned entry is written only while its run is RUNNING here.
    insertOwnedAgentEvent: st(
      `INSERT INTO "AgentEvent" ("runId","type","payload","at") SELECT ?,?,?,? WHERE EXISTS (SELECT 1 FROM "AgentRun" WHERE "id"=? AND "status"='RUNNING' AND json_extract("checkpoint",'$.instanceId')=?)`,
    ),
    endAgentRun: st(
      `UPDATE "AgentRun" SET "status"=?,"final"=?,"checkpoint"=?,"finishedAt"=?,"inputTokens"="inputTokens"+?,"outputTokens"="outputTokens"+?,"totalTokens"="totalTokens"+? WHERE "id"=? AND "status"='RUNNING' AND (? IS NULL OR json_extract("checkpoint",'$.instanceId')=?)`,
    ),
    progressAgentRun: st(
      `UPDATE "AgentRun" SET "checkpoint"=json_set("checkpoint",'$.progress',json(?)) WHERE "id"=? AND "status"='RUNNING' AND json_extract("checkpoint",'$.instanceId')=?`,
    ),
  };
}

type Statements = ReturnType<typeof statements>;

function insertEvent(s: Statements, row: ReturnType<typeof eventRow>): number {
  return Number(s.insertEvent.run({ ...row, at: time(row.at) }).lastInsertRowid);
}

function insertAttempt(s: Statements, row: ReturnType<typeof attemptRow>): void {
  s.insertAttempt.run({ ...row, startedAt: time(row.startedAt), finishedAt: time(row.finishedAt) });
}

/** Rewrites the rows run `runId` stored, scrubbed with `scrubber` (`rescrub.ts`); returns how many. */
function rescrub(s: Statements, runId: string, scrubber: Scrubber): number {
  s.touchRun.run(runId);
  const rewrites = rescrubbed(
    {
      run: (s.runValues.get(runId) as Parameters<typeof rescrubbed>[0]["run"] | undefined) ?? null,
      events: s.eventSnapshots.all(runId) as { seq: number; snapshot: string }[],
      attempts: s.attemptMessages.all(runId) as { id: number; errorMessage: string | null }[],
      interactions: s.interactionQuestions.all(runId) as { id: string; question: string }[],
    },
    scrubber,
  );
  if (rewrites.run) s.rewriteRun.run({ ...rewrites.run, id: runId });
  for (const e of rewrites.events) s.rewriteEvent.run(e.snapshot, e.seq);
  for (const a of rewrites.attempts) s.rewriteAttempt.run(a.errorMessage, a.id);
  for (const q of rewrites.interactions) s.rewriteQuestion.run(q.question, q.id);
  return rewriteCount(rewrites);
}

/**
 * One job's statements. `owner`: this instance; a run's execution writes (attempt, progress, outcome) are stored only
 * while it owns the run (docs/run-lifecycle.md §11.4).
 */
function writeJob(
  s: Statements,
  job: LogJob,
  rewrote: { rows: number; settling: Set<string> },
  owner: string | null,
): JobResult {
  switch (job.kind) {
    case "start": {
      const row = runRow(job.run, job.scope, job.instanceId, job.replay);
      // Only the idempotency scope can be taken (ids are random UUIDs): no row, no event.
      if (
        run(s.insertRun, {
          ...row,
          startedAt: time(row.startedAt),
          replayable: bool(row.replayable),
          syncWait: bool(row.syncWait),
        }) === 0
      )
        return null;
      return insertEvent(s, eventRow(job.run, startEventType(job.run), job.at));
    }
    case "claim":
      if (run(s.claimRun, { id: job.run.id, instanceId: job.instanceId }) === 0) return null;
      return insertEvent(s, eventRow(job.run, "RUN_STARTED", job.at));
    case "attempt": {
      // Only while the run is RUNNING: a run another instance failed keeps that first outcome.
      const row = attemptRow(job.run.id, job.attempt);
      if (
        run(s.insertAttemptIfRunning, {
          ...row,
          startedAt: time(row.startedAt),
          finishedAt: time(row.finishedAt),
          owner,
        }) === 0
      )
        return null;
      return insertEvent(s, eventRow(job.run, "ATTEMPT_FAILED", job.at));
    }
    case "progress": {
      const info = s.insertEventIfRunning.run({
        ...eventRow(job.run, "RUN_PROGRESS", job.at, job.progress),
        at: time(job.at),
        owner,
      });
      return info.changes === 0 ? null : Number(info.lastInsertRowid);
    }
    case "finish": {
      // Also for a run another instance ended: what it stored before is scrubbed all the same.
      if (job.rescrub) rewrote.rows += rescrub(s, job.run.id, job.rescrub);
      const row = outcomeRow(job.run);
      if (
        run(s.settleRun, {
          ...row,
          isError: bool(row.isError),
          terminate: bool(row.terminate),
          finishedAt: time(row.finishedAt),
          owner,
        }) === 0
      )
        return null;
      if (job.attempt) insertAttempt(s, attemptRow(job.run.id, job.attempt));
      return insertEvent(s, eventRow(job.run, job.type, job.at));
    }
    case "rescrub": {
      if (rewrote.settling.has(job.runId)) return 0;
      const n = rescrub(s, job.runId, job.scrubber);
      rewrote.rows += n;
      return n;
    }
    default:
      return writeAgentJob(s, job);
  }
}

/** An agent run's job: an entry (owned: only while its run is RUNNING here), its progress, its end. */
function writeAgentJob(
  s: Statements,
  job: Extract<LogJob, { kind: "agentEvent" | "agentCheckpoint" | "agentFinish" }>,
): JobResult {
  switch (job.kind) {
    case "agentEvent": {
      const at = time(new Date().toISOString());
      if (job.owner === undefined) s.insertAgentEvent.run(job.runId, job.type, JSON.stringify(job.payload), at);
      else if (
        run(s.insertOwnedAgentEvent, [job.runId, job.type, JSON.stringify(job.payload), at, job.runId, job.owner]) === 0
      )
        throw new Error(`agent run ${job.runId} is no longer running on this instance`);
      return null;
    }
    case "agentCheckpoint":
      return run(s.progressAgentRun, [JSON.stringify(job.progress), job.runId, job.owner]) === 0 ? null : 1;
    case "agentFinish": {
      // Only while RUNNING: a run another instance already failed keeps that first outcome.
      const { inputTokens, outputTokens, totalTokens } = job.usage;
      if (
        run(s.endAgentRun, [
          job.status,
          JSON.stringify(job.payload),
          JSON.stringify(job.checkpoint ?? null),
          time(job.finishedAt),
          inputTokens,
          outputTokens,
          totalTokens,
          job.runId,
          job.owner ?? null,
          job.owner ?? null,
        ]) === 0
      )
        return null;
      s.insertAgentEvent.run(job.runId, job.type, JSON.stringify(job.payload), time(job.finishedAt));
      return 1;
    }
  }
}

function run(statement: Statement, params: object | unknown[]): number {
  return (Array.isArray(params) ? statement.run(...params) : statement.run(params)).changes;
}
