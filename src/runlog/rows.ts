import { storableJson, storableText, storableTextOrNull } from "../db/storable.ts";
import type { AttemptRecord, RunRecord } from "../dispatch/run-record.ts";
import type { RunReplay } from "./jobs.ts";

/**
 * The stored form of the run log's values, shared by both databases' statements: text
 * made storable (`db/storable.ts`), JSON serialized, times as ISO strings, and every
 * value scrubbed of known secrets. These statements bypass Prisma, so this is where the
 * storage boundary of docs/security-model.md §3 holds for them.
 */
export interface RunRow {
  id: string;
  tool: string;
  status: string;
  input: string | null;
  content: string;
  door: string;
  callerRole: string;
  callerKey: string | null;
  callerKeyId: string | null;
  tier: string | null;
  idempotencyScope: string | null;
  parentRunId: string | null;
  instanceId: string;
  policy: string | null;
  startedAt: string;
  idempotencyKey: string | null;
  timeoutSeconds: number | null;
  replayable: boolean;
  /** A QUEUED run's: a synchronous waiter's `details.waitingFor` (docs/flow-control.md §3); null otherwise. */
  details: string | null;
  syncWait: boolean;
}

export interface OutcomeRow {
  id: string;
  status: string;
  content: string;
  data: string | null;
  details: string | null;
  isError: boolean;
  errorKind: string | null;
  errorMessage: string | null;
  terminate: boolean;
  finishedAt: string | null;
}

export interface AttemptRow {
  runId: string;
  number: number;
  startedAt: string;
  finishedAt: string | null;
  errorKind: string | null;
  errorMessage: string | null;
  waitSeconds: number | null;
}

export interface EventRow {
  runId: string;
  tool: string;
  type: string;
  snapshot: string;
  at: string;
}

/** A JSON column's value: null stays SQL NULL. */
const jsonOrNull = (v: unknown): string | null =>
  v === null || v === undefined ? null : JSON.stringify(storableJson(v));
const jsonText = (v: unknown): string => JSON.stringify(storableJson(v ?? null));

export function runRow(run: RunRecord, scope: string | null, instanceId: string, replay?: RunReplay): RunRow {
  return {
    id: run.id,
    tool: storableText(run.tool),
    status: run.status,
    input: jsonOrNull(run.input),
    content: jsonText(run.content),
    door: run.door,
    callerRole: run.callerRole,
    callerKey: storableTextOrNull(run.callerKey),
    callerKeyId: run.callerKeyId,
    tier: run.tier,
    idempotencyScope: scope,
    parentRunId: run.parentRunId,
    instanceId,
    policy: jsonOrNull(run.retryPolicy),
    startedAt: run.startedAt,
    idempotencyKey: storableTextOrNull(replay?.idempotencyKey ?? null),
    timeoutSeconds: replay?.timeoutSeconds ?? null,
    replayable: replay?.replayable ?? false,
    details: jsonOrNull(run.details),
    syncWait: replay?.syncWait ?? false,
  };
}

export function outcomeRow(run: RunRecord): OutcomeRow {
  return {
    id: run.id,
    status: run.status,
    content: jsonText(run.content),
    data: jsonOrNull(run.data),
    details: jsonOrNull(run.details),
    isError: run.isError,
    errorKind: run.errorKind,
    errorMessage: storableTextOrNull(run.errorMessage),
    terminate: run.terminate,
    finishedAt: run.finishedAt,
  };
}

export function attemptRow(runId: string, a: AttemptRecord): AttemptRow {
  return {
    runId,
    number: a.number,
    startedAt: a.startedAt,
    finishedAt: a.finishedAt,
    errorKind: a.errorKind,
    errorMessage: storableTextOrNull(a.errorMessage),
    waitSeconds: a.waitSeconds,
  };
}

/**
 * An event's row. A RUN_PROGRESS keeps its update beside the run in the snapshot, under
 * `progress` (`RunStore` takes it back out): the log needs no column for it.
 */
export function eventRow(run: RunRecord, type: string, at: string, progress?: unknown): EventRow {
  return {
    runId: run.id,
    tool: storableText(run.tool),
    type,
    snapshot: jsonText(progress === undefined ? run : { ...run, progress }),
    at,
  };
}
