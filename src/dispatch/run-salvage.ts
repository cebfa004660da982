import { lazyChild } from "../log.ts";
import type { ErrorKind } from "../errors.ts";
import type { RunSteps } from "./run-steps.ts";
import type { RunRecord } from "./run-record.ts";
import { endedQueued } from "./run-redrive.ts";
import { failure } from "./run-settle.ts";

/**
 * The runs a database failure would otherwise leave RUNNING on a live instance, where the
 * orphan sweep never looks (docs/run-lifecycle.md §8, "Outcomes after an outage"): each
 * gets a FAILED outcome kept until the database takes it (`runlog/pending-outcomes.ts`).
 * The finish job stores it only while the run is RUNNING, so an outcome stored before it
 * stands; a run that was never stored needs none.
 */

/**
 * The run's RUN_STARTED write failed: it may still have committed (the connection broke
 * after the commit), leaving a RUNNING row whose body never ran. The dispatch throws; this
 * ends such a row as FAILED / UNAVAILABLE once the database answers. So too a synchronous
 * dispatch's run waiting for its slots (docs/flow-control.md §3) whose start, claim or end
 * failed: stored QUEUED here, or RUNNING by a claim that committed, nothing works on it.
 */
export function keepUnsureStart(steps: RunSteps, run: RunRecord, redact: boolean, error: unknown): void {
  if (steps.settle.pending.get(run.id)) return;
  keepFailure(
    steps,
    run,
    redact,
    "UNAVAILABLE",
    "the database failed while the run was being started; its body did not run",
    error,
  );
}

/** The run's execution threw past every expected failure (a record it had to write could not be): FAILED / INTERNAL. */
export function keepLostOutcome(steps: RunSteps, run: RunRecord, redact: boolean, error: unknown): void {
  if (steps.settle.pending.get(run.id)) return;
  keepFailure(
    steps,
    run,
    redact,
    "INTERNAL",
    "the run's records could not be written (the database failed); its outcome is unknown",
    error,
  );
}

function keepFailure(
  steps: RunSteps,
  run: RunRecord,
  redact: boolean,
  kind: ErrorKind,
  message: string,
  error: unknown,
): void {
  const { deps, settle } = steps;
  const ended: RunRecord = { ...run, ...failure(kind, message), finishedAt: new Date().toISOString() };
  const snapshot = settle.snapshot(ended, redact);
  // A waiting run still QUEUED here is ended from there; any other (RUNNING) by its finish.
  const waiting = { status: "QUEUED" as const, instanceId: deps.instanceId, syncWait: true };
  const unrun = () =>
    run.status === "QUEUED"
      ? deps.moves.move(run.id, waiting, (r) => endedQueued(r, { status: "FAILED", kind, message }))
      : Promise.resolve(null);
  const write = async () => {
    try {
      return (await unrun()) ?? (await deps.runs.finish(snapshot, null));
    } catch (e) {
      // Never stored: nothing to end.
      if ((await deps.runs.get(run.id)) === null) return null;
      throw e;
    }
  };
  settle.pending.keep(run.id, {
    value: { run: snapshot, output: ended },
    write,
    onStored: (event) => event && settle.publish(event),
    log: lazyChild(deps.log, { runId: run.id, tool: run.tool }),
    error,
  });
}
