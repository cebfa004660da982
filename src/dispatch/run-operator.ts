import type { Caller } from "../auth/roles.ts";
import { mayRun } from "../auth/tiers.ts";
import { requireVisibleRun } from "../auth/visibility.ts";
import { ApiError } from "../errors.ts";
import type { RunEventRecord, RunRecord } from "./run-record.ts";
import { requeued } from "./run-redrive.ts";
import type { RunTransitions } from "./run-transitions.ts";

/** The outcomes an operator may settle a run whose outcome is unknown with. */
export const SETTLED_STATUSES = ["SUCCEEDED", "FAILED", "CANCELLED"] as const;
export type SettledStatus = (typeof SETTLED_STATUSES)[number];

/** A run the caller may act on, in the OUTCOME_UNKNOWN state (NOT_FOUND / CONFLICT otherwise). */
async function unknownRun(moves: RunTransitions, caller: Caller, runId: string): Promise<RunRecord> {
  const run = requireVisibleRun(caller, await moves.runs.get(runId), runId);
  if (run.status !== "OUTCOME_UNKNOWN")
    throw new ApiError("CONFLICT", `run ${runId} is ${run.status}: only a run whose outcome is unknown can be`);
  return run;
}

/**
 * An operator's retry (docs/run-lifecycle.md §11.5): OUTCOME_UNKNOWN → QUEUED, to be executed again as its next
 * attempt. Refused when its input is not stored as it ran, or the caller may not run its tier.
 */
export async function retryUnknown(moves: RunTransitions, caller: Caller, runId: string): Promise<RunEventRecord> {
  const run = await unknownRun(moves, caller, runId);
  if (run.tier && !mayRun(caller.role, run.tier))
    throw new ApiError("FORBIDDEN", `role ${caller.role} may not run ${run.tier}-tier tool "${run.tool}"`);
  if (!(await moves.replayOf(runId))?.replayable)
    throw ApiError.badInput(
      `run ${runId} cannot be retried: its input was not stored as it ran (it was redacted, or held a secret); dispatch it again instead`,
    );
  const ev = await moves.move(runId, { status: "OUTCOME_UNKNOWN" }, (r) => {
    // An operator's retry is a new decision: a cancel asked while the run last ran does not stop it.
    const change = requeued(r, "retried by an operator");
    return { ...change, data: { ...change.data, cancelRequestedAt: null } };
  });
  if (!ev) throw new ApiError("CONFLICT", `run ${runId} was retried or settled meanwhile`);
  return ev;
}

/**
 * An operator's settle (docs/run-lifecycle.md §11.5): OUTCOME_UNKNOWN → `status`, with `message`, as its RUN_FINISHED;
 * `details.settled` names who settled it.
 */
export async function settleUnknown(
  moves: RunTransitions,
  caller: Caller,
  runId: string,
  status: SettledStatus,
  message: string | null,
): Promise<RunEventRecord> {
  if (message !== null && (message.length === 0 || message.length > 2000))
    throw ApiError.badInput("message must be 1 to 2000 characters", [
      { path: "message", message: "must be 1 to 2000 characters" },
    ]);
  const run = await unknownRun(moves, caller, runId);
  const finishedAt = new Date();
  const settled = { by: caller.keyName ?? `anonymous ${caller.role}`, at: finishedAt.toISOString(), message };
  const details = { ...(run.details as object | null), settled };
  const fields =
    status === "SUCCEEDED"
      ? { status, isError: false, errorKind: null, errorMessage: null }
      : {
          status,
          isError: true,
          errorKind: status === "CANCELLED" ? ("CANCELLED" as const) : ("INTERRUPTED" as const),
          errorMessage: message ?? `settled ${status} by an operator`,
        };
  const ev = await moves.move(runId, { status: "OUTCOME_UNKNOWN" }, (r) => ({
    type: "RUN_FINISHED",
    record: { ...r, ...fields, details, finishedAt: finishedAt.toISOString() },
    data: { ...fields, details, finishedAt },
  }));
  if (!ev) throw new ApiError("CONFLICT", `run ${runId} was retried or settled meanwhile`);
  return ev;
}
