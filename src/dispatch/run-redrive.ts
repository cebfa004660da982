import type { ErrorKind } from "../errors.ts";

type Json = import("../db/generated/sqlite/internal/prismaNamespace.ts").InputJsonValue;
import type { AttemptRecord, RunEventRecord, RunRecord } from "./run-record.ts";
import type { Change, RunTransitions, StoredReplay } from "./run-transitions.ts";

/** A run is re-driven at most this many times: a body that kills its instance every time is not re-run forever. */
export const MAX_REDRIVES = 3;

/** The message of a run whose instance died mid-run and that was not re-run. */
export const OUTCOME_UNKNOWN_MESSAGE =
  "its instance stopped while it ran and it was not re-run: its outcome is unknown (an operator may retry or settle it)";

/** The message of a synchronous dispatch's run whose instance died while it waited for a concurrency slot. */
export const NEVER_RAN_MESSAGE =
  "its instance stopped while the run waited for a concurrency slot: its body never ran (send the dispatch again)";

/**
 * Why a run cannot be executed again by another instance (docs/run-lifecycle.md §11.4 a–c), or null when it can.
 */
export function whyNotReplayable(run: RunRecord, replay: StoredReplay | null): string | null {
  if (!replay?.replayable)
    return "its input is not stored as it ran (it was redacted, or held a secret), so no other instance can run it";
  if (!run.retryPolicy?.idempotent) return "its retry policy does not claim the tool idempotent";
  if (replay.redrives >= MAX_REDRIVES) return `it was already re-driven ${MAX_REDRIVES} times`;
  return null;
}

/** The attempt an interruption cut short, recorded as failed with `why`; numbered after the stored ones. */
export function interruptedAttempt(run: RunRecord, why: string): AttemptRecord {
  const last = run.attempts.at(-1);
  return {
    number: run.attempts.length + 1,
    startedAt: last?.finishedAt ?? run.startedAt,
    finishedAt: new Date().toISOString(),
    errorKind: "UNAVAILABLE",
    errorMessage: why,
    waitSeconds: 0,
  };
}

/** What the sweep did with the runs of instances that are gone. */
export interface OrphanOutcome {
  /** Every event written (RUN_QUEUED of the re-driven, RUN_INTERRUPTED of the others), for publishing. */
  events: RunEventRecord[];
  /** The re-driven runs, now QUEUED: the caller hands them to the queue. */
  queued: string[];
}

/**
 * The runs left RUNNING by instances not in `liveIds`: each is re-driven (QUEUED again, its cut attempt recorded) or
 * becomes OUTCOME_UNKNOWN. Safe from several instances at once: each run moves exactly once.
 */
export async function settleOrphans(
  moves: RunTransitions,
  liveIds: string[],
  whyGone: (instanceId: string) => string,
): Promise<OrphanOutcome> {
  const out: OrphanOutcome = { events: [], queued: [] };
  for (const { id, instanceId } of await moves.orphans(liveIds)) {
    const replay = await moves.replayOf(id);
    const reason = whyGone(instanceId);
    const ev = await moves.move(id, { status: "RUNNING", instanceId: { notIn: liveIds } }, (run) => {
      const why = whyNotReplayable(run, replay);
      return why === null
        ? requeued(run, `interrupted: ${reason}`, (replay?.redrives ?? 0) + 1)
        : unknownOutcome(run, { instanceId, reason, notReRun: why });
    });
    if (!ev) continue;
    out.events.push(ev);
    if (ev.type === "RUN_QUEUED") out.queued.push(id);
  }
  out.events.push(...(await endWaiters(moves, liveIds, whyGone)));
  return out;
}

/**
 * The synchronous dispatches' runs left waiting for a slot (QUEUED, `syncWait`) by instances not in `liveIds`: each
 * ends FAILED / UNAVAILABLE (RUN_FINISHED), never OUTCOME_UNKNOWN: its body never ran. Nothing else would end it: it
 * belongs to a request that is gone, and no queue worker takes it.
 */
async function endWaiters(
  moves: RunTransitions,
  liveIds: string[],
  whyGone: (instanceId: string) => string,
): Promise<RunEventRecord[]> {
  const events: RunEventRecord[] = [];
  for (const { id, instanceId } of await moves.orphanWaiters(liveIds)) {
    const interrupted = { instanceId, reason: whyGone(instanceId) };
    const from = { status: "QUEUED" as const, instanceId: { notIn: liveIds }, syncWait: true };
    const ev = await moves.move(id, from, (run) => {
      const details = { ...(run.details as object | null), interrupted };
      return endedQueued(run, {
        status: "FAILED",
        kind: "UNAVAILABLE",
        message: NEVER_RAN_MESSAGE,
        details,
        freesKey: true,
      });
    });
    if (ev) events.push(ev);
  }
  return events;
}

/** How a QUEUED run ends without running: cancelled, refused by a limit it waited for, its waiting instance gone. */
export interface QueuedEnd {
  status: "CANCELLED" | "FAILED";
  kind: ErrorKind;
  message: string;
  details?: unknown;
  /**
   * Its idempotency key is let go: a synchronous dispatch's waiting run that ended without running is, like a refusal
   * (stored with no key), no reason to answer the same key with this outcome for ever; followers hold its id already.
   */
  freesKey?: boolean;
}

/** A QUEUED run ended as `end` says (RUN_FINISHED), its body never run; without `end.details` it keeps its own. */
export function endedQueued(run: RunRecord, end: QueuedEnd): Change {
  const finishedAt = new Date();
  const ended = { status: end.status, isError: true, errorKind: end.kind, errorMessage: end.message };
  const details = end.details === undefined ? {} : { details: end.details };
  return {
    type: "RUN_FINISHED",
    record: { ...run, ...ended, ...details, finishedAt: finishedAt.toISOString() },
    data: {
      ...ended,
      ...(details as { details?: Json }),
      finishedAt,
      ...(end.freesKey ? { idempotencyScope: null } : {}),
    },
  };
}

/** A run whose outcome is unknown (OUTCOME_UNKNOWN, RUN_INTERRUPTED); `interrupted` goes to its details. */
export function unknownOutcome(run: RunRecord, interrupted: Record<string, string>): Change {
  const finishedAt = new Date();
  const record: RunRecord = {
    ...run,
    status: "OUTCOME_UNKNOWN",
    isError: true,
    errorKind: "INTERRUPTED",
    errorMessage: OUTCOME_UNKNOWN_MESSAGE,
    details: { interrupted },
    finishedAt: finishedAt.toISOString(),
  };
  const { status, errorKind, errorMessage } = record;
  return {
    type: "RUN_INTERRUPTED",
    record,
    data: { status, isError: true, errorKind, errorMessage, details: { interrupted }, finishedAt },
  };
}

/** A run QUEUED again, its cut attempt recorded with `why` (a re-drive, a hand-back, an operator's retry). */
export function requeued(run: RunRecord, why: string, redrives?: number): Change {
  const attempt = run.status === "RUNNING" ? interruptedAttempt(run, why) : undefined;
  const record: RunRecord = {
    ...run,
    status: "QUEUED",
    isError: false,
    errorKind: null,
    errorMessage: null,
    finishedAt: null,
    attempts: attempt ? [...run.attempts, attempt] : run.attempts,
  };
  return {
    type: "RUN_QUEUED",
    record,
    ...(attempt ? { attempt } : {}),
    data: {
      status: "QUEUED",
      isError: false,
      errorKind: null,
      errorMessage: null,
      finishedAt: null,
      ...(redrives === undefined ? {} : { redrives }),
    },
  };
}
