import type { Tier } from "../auth/roles.ts";
import type { ErrorKind } from "../errors.ts";
import type { AppliedPolicy } from "../retry/applied-policy.ts";
import type { ContentBlock } from "../tools/result.ts";
import type { RunProgress } from "../tools/tool-update.ts";
import { newRunId } from "./run-id.ts";

export const RUN_STATUSES = [
  "QUEUED",
  "RUNNING",
  "SUCCEEDED",
  "FAILED",
  "PARKED",
  "CANCELLED",
  "OUTCOME_UNKNOWN",
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const RUN_EVENT_TYPES = [
  "RUN_QUEUED",
  "RUN_STARTED",
  "ATTEMPT_FAILED",
  "RUN_PROGRESS",
  "RUN_PARKED",
  "RUN_INTERRUPTED",
  "RUN_FINISHED",
] as const;
export type RunEventType = (typeof RUN_EVENT_TYPES)[number];

/** The doors a run can come through. */
export const DOORS = ["graphql", "agent", "extension", "cli", "mcp", "runtime"] as const;
/** The door a run came through. */
export type Door = (typeof DOORS)[number];

/**
 * The API doors: they list and accept only the curated surface (docs/composing-the-surface.md
 * "Curation decides what the API serves"). Every other door runs in the process (the CLI, an
 * agent's tool calls, an extension's or a tool's own dispatches, the runtime) and reaches every
 * registered name; tiers decide who may run either way.
 */
const API_DOORS: ReadonlySet<Door> = new Set<Door>(["graphql", "mcp"]);

/** Whether runs through `door` see only the curated surface. */
export function seesCuratedSurface(door: Door): boolean {
  return API_DOORS.has(door);
}

/** One attempt of a run's retry loop. Times are ISO strings (they cross Redis as JSON). */
export interface AttemptRecord {
  number: number;
  startedAt: string;
  finishedAt: string | null;
  errorKind: ErrorKind | null;
  errorMessage: string | null;
  /** Seconds waited after this attempt before the next; null when none followed. */
  waitSeconds: number | null;
}

/** A run as every door sees it. SECRET tools carry "[redacted]" input and output. */
export interface RunRecord {
  id: string;
  tool: string;
  status: RunStatus;
  input: unknown;
  content: ContentBlock[];
  data: unknown;
  details: unknown;
  isError: boolean;
  errorKind: ErrorKind | null;
  errorMessage: string | null;
  terminate: boolean;
  attempts: AttemptRecord[];
  parentRunId: string | null;
  door: Door;
  callerRole: string;
  callerKey: string | null;
  /** The root caller's key id (children carry their root's); null when anonymous. */
  callerKeyId: string | null;
  /** The tier of the tool run; null when unknown (see docs/security-model.md §2). */
  tier: Tier | null;
  /** The retry policy it was executed with; null: exactly one attempt. */
  retryPolicy: AppliedPolicy | null;
  startedAt: string;
  finishedAt: string | null;
}

/** One entry of the run event log, as published and as replayed. */
export interface RunEventRecord {
  seq: number;
  type: RunEventType;
  at: string;
  runId: string;
  tool: string;
  run: RunRecord;
  /** RUN_PROGRESS: the update the body reported (`ctx.onUpdate`); absent on every other type. */
  progress?: RunProgress;
}

/**
 * Whether a dispatch is answered with the run as it is: it is no longer waiting for an instance or executing (PARKED
 * and OUTCOME_UNKNOWN wait for an answer or an operator, and count as final here).
 */
export function isFinal(status: RunStatus): boolean {
  return status !== "RUNNING" && status !== "QUEUED";
}

/** A new RUNNING run for a dispatch, before anything about its tool is known. */
export function newRun(fields: {
  tool: string;
  input: unknown;
  door: Door;
  callerRole: string;
  callerKey: string | null;
  callerKeyId?: string | null;
  parentRunId?: string | null;
}): RunRecord {
  return {
    id: newRunId(),
    tool: fields.tool,
    status: "RUNNING",
    input: fields.input ?? null,
    content: [],
    data: null,
    details: null,
    isError: false,
    errorKind: null,
    errorMessage: null,
    terminate: false,
    attempts: [],
    parentRunId: fields.parentRunId ?? null,
    door: fields.door,
    callerRole: fields.callerRole,
    callerKey: fields.callerKey,
    callerKeyId: fields.callerKeyId ?? null,
    // Until the tool is resolved nothing of any tier has run: a run refused before that
    // (unknown tool, shutdown) is a read-tier record of the caller's own request.
    tier: "read",
    retryPolicy: null,
    startedAt: new Date().toISOString(),
    finishedAt: null,
  };
}
