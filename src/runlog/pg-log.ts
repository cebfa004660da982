import type pg from "pg";
import { REGISTER_EVENT_WRITER_SQL } from "../db/event-log.ts";
import type { Scrubber } from "../secrets/secrets.ts";
import { startEventType, type JobResult, type LogJob, type WriteBatch } from "./jobs.ts";
import { pgRescrub } from "./pg-rescrub.ts";
import { inTransaction } from "./pg-transaction.ts";
import {
  attemptRow,
  eventRow,
  outcomeRow,
  runRow,
  type AttemptRow,
  type EventRow,
  type OutcomeRow,
  type RunRow,
} from "./rows.ts";

/**
 * The run log on PostgreSQL: a batch is ONE statement, so one round trip and one
 * (implicit) transaction, prepared once per pooled connection. Its data-modifying CTEs
 * insert the new runs (a taken idempotency scope is skipped, not an error), settle the
 * finished ones (only those still RUNNING), add the attempts (a retried one only while its
 * run is still RUNNING), then register as an event-log writer (a shared lock, which no
 * writer waits for) and insert every event whose write went through. The lock is taken
 * only after the run inserts and settles have completed (`lk` reads them) and before the
 * events draw their seqs: a reader settling a gap waits for the writers registered when
 * it found the gap (`db/event-log.ts`, docs/run-lifecycle.md §9). Nothing is held across
 * round trips and no instance's commit waits for another's.
 * Agent stream entries are their own batches, one statement each; they need no lock
 * (their order is their run's own `seq`).
 */
/** `owner`: this instance (null: no owner check, for tools that read and write the log outside a server). */
export function pgLog(pool: pg.Pool, owner: string | null = null): WriteBatch {
  // The writer hands over tool-run jobs and agent entries in separate batches.
  const write = async (jobs: readonly LogJob[]): Promise<JobResult[]> => {
    const runJobs = jobs.filter(
      (j) =>
        j.kind !== "agentEvent" && j.kind !== "agentFinish" && j.kind !== "agentCheckpoint" && j.kind !== "rescrub",
    );
    const rescrubs = rescrubsOf(jobs);
    if (rescrubs.size) return writeWithRescrubs(pool, jobs, runJobs, rescrubs, owner);
    if (!runJobs.length) {
      const ended = await writeAgentJobs(pool, jobs as AgentJob[]);
      return (jobs as AgentJob[]).map((j) => (j.kind !== "agentEvent" && ended.has(`${j.kind} ${j.runId}`) ? 1 : null));
    }
    if (runJobs.length !== jobs.length) throw new Error("a run-log batch mixes tool-run jobs and agent entries");
    const seqs = await writeRunJobs(pool, checkedRunJobs(runJobs), owner);
    return runJobs.map((j) => seqs.get(eventKey(j.run.id, typeOf(j))) ?? null);
  };
  return write;
}

type RunJob = Exclude<LogJob, { kind: "agentEvent" | "agentFinish" | "agentCheckpoint" | "rescrub" }>;
type AgentJob = Extract<LogJob, { kind: "agentEvent" | "agentFinish" | "agentCheckpoint" }>;

/** The batch's tool-run jobs, refused when two write one run. */
function checkedRunJobs(runJobs: RunJob[]): RunJob[] {
  // One statement sees the batch's runs as they were before it: two writes of one run
  // would both pass its RUNNING check (two closing events) and share one seq. They are
  // written one job per transaction instead (`isolatingFailures`), in order.
  if (new Set(runJobs.map((j) => j.run.id)).size !== runJobs.length)
    throw new Error("a run-log batch writes one run twice");
  return runJobs;
}

/**
 * Per run, the scrubber of the batch's rescrubs (`rescrub` jobs and finishes that carry one); the last one wins (a
 * scope only grows).
 */
function rescrubsOf(jobs: readonly LogJob[]): Map<string, Scrubber> {
  const out = new Map<string, Scrubber>();
  for (const j of jobs) {
    if (j.kind === "rescrub") out.set(j.runId, j.scrubber);
    else if (j.kind === "finish" && j.rescrub) out.set(j.run.id, j.rescrub);
  }
  return out;
}

/**
 * A batch with rescrubs (a late `ctx.redact`, `rescrub.ts`): one transaction on one
 * connection, the tool-run statement first, then each run's rows rewritten, so that what
 * the batch itself stored is scrubbed too and an outcome is never committed without its
 * run's rescrub. (The writer registration is then held across the rescrub's round trips:
 * only in these batches, and it delays only readers settling a gap.) Agent entries are
 * never in one (`log-writer.ts` sends them apart).
 */
async function writeWithRescrubs(
  pool: pg.Pool,
  jobs: readonly LogJob[],
  runJobs: RunJob[],
  rescrubs: Map<string, Scrubber>,
  owner: string | null,
): Promise<JobResult[]> {
  if (jobs.some((j) => j.kind === "agentEvent" || j.kind === "agentFinish" || j.kind === "agentCheckpoint"))
    throw new Error("a run-log batch mixes tool-run jobs and agent entries");
  return inTransaction(pool, async (client) => {
    const seqs = runJobs.length
      ? await writeRunJobs(client, checkedRunJobs(runJobs), owner)
      : new Map<string, number>();
    const counts = new Map<string, number>();
    for (const [runId, scrubber] of rescrubs) counts.set(runId, await pgRescrub(client, runId, scrubber));
    return jobs.map((j) =>
      j.kind === "rescrub"
        ? (counts.get(j.runId) ?? 0)
        : (seqs.get(eventKey((j as RunJob).run.id, typeOf(j as RunJob))) ?? null),
    );
  });
}

const typeOf = (j: RunJob) =>
  j.kind === "start"
    ? startEventType(j.run)
    : j.kind === "claim"
      ? "RUN_STARTED"
      : j.kind === "attempt"
        ? "ATTEMPT_FAILED"
        : j.kind === "progress"
          ? "RUN_PROGRESS"
          : j.type;
// A batch holds at most one job per run (`write` sees to it), so at most one event per (run, type).
const eventKey = (runId: string, type: string) => `${runId} ${type}`;

const RUN_LOG_SQL = /* SQL */ `
WITH ins AS (
  INSERT INTO "Run" ("id","tool","status","input","content","door","callerRole","callerKey","callerKeyId","tier","idempotencyScope","parentRunId","instanceId","policy","startedAt","idempotencyKey","timeoutSeconds","replayable","details","syncWait")
  SELECT * FROM unnest($1::text[],$2::text[],$3::text[],$4::jsonb[],$5::jsonb[],$6::text[],$7::text[],$8::text[],$9::text[],$10::text[],$11::text[],$12::text[],$13::text[],$14::jsonb[],$15::timestamp(3)[],$41::text[],$42::float8[],$43::boolean[],$47::jsonb[],$48::boolean[])
  -- In scope order (column 11): two instances' batches taking the same scopes wait on
  -- each other's in one order, never in a cycle.
  ORDER BY 11
  ON CONFLICT ("idempotencyScope") DO NOTHING
  RETURNING "id"
), upd AS (
  UPDATE "Run" r SET "status"=v.status,"content"=v.content,"data"=v.data,"details"=v.details,"isError"=v.is_error,"errorKind"=v.error_kind,"errorMessage"=v.error_message,"terminate"=v.terminate,"finishedAt"=v.finished_at
  FROM unnest($16::text[],$17::text[],$18::jsonb[],$19::jsonb[],$20::jsonb[],$21::boolean[],$22::text[],$23::text[],$24::boolean[],$25::timestamp(3)[])
    AS v(id,status,content,data,details,is_error,error_kind,error_message,terminate,finished_at)
  -- ($44: this instance; an execution's writes are stored only while it owns the run.)
  WHERE r."id"=v.id AND r."status"='RUNNING' AND ($44::text IS NULL OR r."instanceId"=$44::text)
  RETURNING r."id"
), cl AS (
  -- The claims of QUEUED runs (docs/run-lifecycle.md §11.2): a row another claimant took (or a cancel ended) first is
  -- no longer QUEUED when this UPDATE re-reads it after that writer's commit, so exactly one claim changes it. A
  -- synchronous waiter's wait (its flag, its details.waitingFor) ends with it.
  UPDATE "Run" r SET "status"='RUNNING',"instanceId"=v.instance,
    "details"=CASE WHEN r."syncWait" THEN NULL ELSE r."details" END,"syncWait"=false
  FROM unnest($45::text[],$46::text[]) AS v(id,instance)
  WHERE r."id"=v.id AND r."status"='QUEUED'
  RETURNING r."id"
), live AS (
  -- A retried attempt is recorded only while its run is still RUNNING: a run another
  -- instance already failed (this one was declared gone) keeps that first outcome. The
  -- share lock waits out a sweep settling the run right now.
  -- ($40: the runs of the batch's progress events, written under the same rule.)
  SELECT "id" FROM "Run" WHERE "id" = ANY($26::text[] || $40::text[]) AND "status"='RUNNING'
    AND ($44::text IS NULL OR "instanceId"=$44::text) FOR SHARE
), att AS (
  INSERT INTO "Attempt" ("runId","number","startedAt","finishedAt","errorKind","errorMessage","waitSeconds")
  SELECT a.run_id,a.number,a.started_at,a.finished_at,a.error_kind,a.error_message,a.wait_seconds
  FROM unnest($26::text[],$27::int[],$28::timestamp(3)[],$29::timestamp(3)[],$30::text[],$31::text[],$32::float8[],$33::boolean[])
    AS a(run_id,number,started_at,finished_at,error_kind,error_message,wait_seconds,on_settle)
  WHERE (NOT a.on_settle AND a.run_id IN (SELECT "id" FROM live)) OR (a.on_settle AND a.run_id IN (SELECT "id" FROM upd))
), lk AS MATERIALIZED (
  -- Registers this transaction as an event-log writer (a SHARED lock: writers never wait
  -- on one another) before the events below draw their seqs, so that a reader settling a
  -- gap waits for it (docs/run-lifecycle.md §9). Taken once every run of the batch is
  -- inserted, settled and share-locked, as the exclusive lock of earlier versions was.
  SELECT ${REGISTER_EVENT_WRITER_SQL} IS NULL AS taken
  FROM (SELECT count(*) FROM ins) i, (SELECT count(*) FROM upd) u, (SELECT count(*) FROM live) l,
    (SELECT count(*) FROM cl) c
), ev AS (
  INSERT INTO "RunEvent" ("runId","tool","type","snapshot","at")
  SELECT e.run_id,e.tool,e.type,e.snapshot,e.at
  FROM unnest($34::text[],$35::text[],$36::text[],$37::jsonb[],$38::timestamp(3)[],$39::text[]) WITH ORDINALITY AS e(run_id,tool,type,snapshot,at,gate,n)
  CROSS JOIN lk
  WHERE (e.gate='running' AND e.run_id IN (SELECT "id" FROM live)) OR (e.gate='start' AND e.run_id IN (SELECT "id" FROM ins)) OR (e.gate='settle' AND e.run_id IN (SELECT "id" FROM upd))
    OR (e.gate='claim' AND e.run_id IN (SELECT "id" FROM cl))
  ORDER BY e.n
  RETURNING "seq","runId","type"
)
SELECT "seq","runId","type" FROM ev`;

/** Column arrays for `unnest`, one per field of `rows`, in `fields` order. */
function columns<T>(rows: T[], fields: (keyof T)[]): unknown[][] {
  return fields.map((f) => rows.map((r) => r[f] ?? null));
}

/** The columns of a new run, in the statement's order ($1…$15). */
const RUN_COLUMNS: (keyof RunRow)[] = [
  "id",
  "tool",
  "status",
  "input",
  "content",
  "door",
  "callerRole",
  "callerKey",
  "callerKeyId",
  "tier",
  "idempotencyScope",
  "parentRunId",
  "instanceId",
  "policy",
  "startedAt",
];

async function writeRunJobs(
  pool: pg.Pool | pg.PoolClient,
  jobs: RunJob[],
  owner: string | null,
): Promise<Map<string, number>> {
  const runs: RunRow[] = [];
  const outcomes: OutcomeRow[] = [];
  const attempts: (AttemptRow & { onSettle: boolean })[] = [];
  const events: (EventRow & { gate: string })[] = [];
  const progressRuns: string[] = [];
  const claims: { id: string; instanceId: string }[] = [];
  for (const j of jobs) {
    if (j.kind === "claim") {
      claims.push({ id: j.run.id, instanceId: j.instanceId });
      events.push({ ...eventRow(j.run, "RUN_STARTED", j.at), gate: "claim" });
    } else if (j.kind === "start") {
      runs.push(runRow(j.run, j.scope, j.instanceId, j.replay));
      events.push({ ...eventRow(j.run, startEventType(j.run), j.at), gate: "start" });
    } else if (j.kind === "attempt") {
      attempts.push({ ...attemptRow(j.run.id, j.attempt), onSettle: false });
      events.push({ ...eventRow(j.run, "ATTEMPT_FAILED", j.at), gate: "running" });
    } else if (j.kind === "progress") {
      progressRuns.push(j.run.id);
      events.push({ ...eventRow(j.run, "RUN_PROGRESS", j.at, j.progress), gate: "running" });
    } else {
      outcomes.push(outcomeRow(j.run));
      if (j.attempt) attempts.push({ ...attemptRow(j.run.id, j.attempt), onSettle: true });
      events.push({ ...eventRow(j.run, j.type, j.at), gate: "settle" });
    }
  }
  const values = [
    ...columns(runs, RUN_COLUMNS),
    ...columns(outcomes, [
      "id",
      "status",
      "content",
      "data",
      "details",
      "isError",
      "errorKind",
      "errorMessage",
      "terminate",
      "finishedAt",
    ]),
    ...columns(attempts, [
      "runId",
      "number",
      "startedAt",
      "finishedAt",
      "errorKind",
      "errorMessage",
      "waitSeconds",
      "onSettle",
    ]),
    ...columns(events, ["runId", "tool", "type", "snapshot", "at", "gate"]),
    progressRuns,
    ...columns(runs, ["idempotencyKey", "timeoutSeconds", "replayable"]),
    owner,
    // In id order: two instances' batches claiming the same runs take their rows in one order.
    ...columns(
      claims.sort((a, b) => (a.id < b.id ? -1 : 1)),
      ["id", "instanceId"],
    ),
    ...columns(runs, ["details", "syncWait"]),
  ];
  const { rows } = await pool.query<{ seq: number; runId: string; type: string }>({
    name: "tai42-run-log",
    text: RUN_LOG_SQL,
    values,
  });
  return new Map(rows.map((r) => [eventKey(r.runId, r.type), Number(r.seq)]));
}

// A run's end (and its last entry) is written only while it is still RUNNING: a run
// another instance already failed keeps that first outcome (fencing). An owned entry or end
// is written only while the run is owned by its writer (owner fencing, docs/agent-stream.md §4.3).
const AGENT_LOG_SQL = `
WITH fin AS (
  UPDATE "AgentRun" r SET "status"=v.status,"final"=v.final,"checkpoint"=v.checkpoint,"finishedAt"=v.finished_at,
    "inputTokens"=r."inputTokens"+v.input_tokens,"outputTokens"=r."outputTokens"+v.output_tokens,"totalTokens"=r."totalTokens"+v.total_tokens
  FROM unnest($4::text[],$5::text[],$6::jsonb[],$7::jsonb[],$8::timestamp(3)[],$10::int[],$11::int[],$12::int[],$14::text[]) AS v(id,status,final,checkpoint,finished_at,input_tokens,output_tokens,total_tokens,owner)
  WHERE r."id"=v.id AND r."status"='RUNNING' AND (v.owner IS NULL OR r."checkpoint"->>'instanceId'=v.owner)
  RETURNING r."id"
), ev AS (
  INSERT INTO "AgentEvent" ("runId","type","payload")
  SELECT e.run_id,e.type,e.payload FROM unnest($1::text[],$2::text[],$3::jsonb[],$9::boolean[],$13::text[]) WITH ORDINALITY AS e(run_id,type,payload,ends,owner,n)
  WHERE (NOT e.ends AND (e.owner IS NULL OR EXISTS (SELECT 1 FROM "AgentRun" a WHERE a."id"=e.run_id AND a."status"='RUNNING' AND a."checkpoint"->>'instanceId'=e.owner)))
     OR (e.ends AND e.run_id IN (SELECT "id" FROM fin))
  ORDER BY e.n
  RETURNING 1
), refused AS (
  SELECT count(*) AS n FROM unnest($1::text[],$9::boolean[],$13::text[]) AS e(run_id,ends,owner)
  WHERE NOT e.ends AND e.owner IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "AgentRun" a WHERE a."id"=e.run_id AND a."status"='RUNNING' AND a."checkpoint"->>'instanceId'=e.owner)
)
SELECT "id", 1/(CASE WHEN (SELECT n FROM refused)>0 THEN 0 ELSE 1 END) AS "ok" FROM fin
UNION ALL SELECT NULL, 1/(CASE WHEN (SELECT n FROM refused)>0 THEN 0 ELSE 1 END)`;
// An owned entry its run no longer takes (the last SELECT divides by zero): the whole statement is rolled back.
const REFUSED = "22012";

const PROGRESS_SQL = `UPDATE "AgentRun" SET "checkpoint"=jsonb_set("checkpoint",'{progress}',$1::jsonb)
WHERE "id"=$2 AND "status"='RUNNING' AND "checkpoint"->>'instanceId'=$3 RETURNING "id"`;

/**
 * Writes agent entries and ends, then the checkpoints of the batch (after the entries they follow), in one
 * transaction; resolves with `<kind> <runId>` of each end and checkpoint written. An owned entry its run no longer
 * takes (not RUNNING on its writer) fails the batch, nothing of it written.
 */
async function writeAgentJobs(pool: pg.Pool, all: AgentJob[]): Promise<Set<string>> {
  const jobs = all.filter((j): j is Exclude<AgentJob, { kind: "agentCheckpoint" }> => j.kind !== "agentCheckpoint");
  const progress = all.filter((j) => j.kind === "agentCheckpoint");
  if (!progress.length) return entriesAndEnds(pool, jobs);
  return inTransaction(pool, async (client) => {
    const done = jobs.length ? await entriesAndEnds(client, jobs) : new Set<string>();
    for (const j of progress) {
      const { rowCount } = await client.query(PROGRESS_SQL, [JSON.stringify(j.progress), j.runId, j.owner]);
      if (rowCount) done.add(`agentCheckpoint ${j.runId}`);
    }
    return done;
  });
}

/** The entries and ends of a batch, in one statement; resolves with `agentFinish <runId>` of each end written. */
async function entriesAndEnds(
  pool: pg.Pool | pg.PoolClient,
  jobs: Exclude<AgentJob, { kind: "agentCheckpoint" }>[],
): Promise<Set<string>> {
  const events = jobs.map((j) => ({
    runId: j.runId,
    type: j.type,
    payload: JSON.stringify(j.payload),
    ends: j.kind === "agentFinish",
    owner: j.owner ?? null,
  }));
  const ends = jobs.flatMap((j) =>
    j.kind === "agentFinish"
      ? [
          {
            id: j.runId,
            status: j.status,
            final: JSON.stringify(j.payload),
            checkpoint: JSON.stringify(j.checkpoint ?? null),
            finishedAt: j.finishedAt,
            ...j.usage,
            owner: j.owner ?? null,
          },
        ]
      : [],
  );
  const values = [
    ...columns(events, ["runId", "type", "payload"]),
    ...columns(ends, ["id", "status", "final", "checkpoint", "finishedAt"]),
    ...columns(events, ["ends"]),
    ...columns(ends, ["inputTokens", "outputTokens", "totalTokens"]),
    ...columns(events, ["owner"]),
    ...columns(ends, ["owner"]),
  ];
  try {
    const { rows } = await pool.query<{ id: string | null }>({
      name: "tai42-agent-log-owned",
      text: AGENT_LOG_SQL,
      values,
    });
    return new Set(rows.flatMap((r) => (r.id === null ? [] : [`agentFinish ${r.id}`])));
  } catch (e) {
    if ((e as { code?: string }).code === REFUSED)
      throw new Error("an agent run is no longer running on this instance", { cause: e });
    throw e;
  }
}
