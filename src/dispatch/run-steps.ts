import type { InFlight } from "../runlog/in-flight.ts";
import type { DispatchDeps, RunOutcome, RunRequest } from "./request.ts";
import type { RunRecord } from "./run-record.ts";
import type { RunSettle } from "./run-settle.ts";

/** What the steps of a run (execute, park, resume) share with the dispatcher that owns them (`dispatcher.ts`). */
export interface RunSteps {
  readonly deps: DispatchDeps;
  readonly settle: RunSettle;
  /** The runs in flight on this instance. */
  readonly inflight: InFlight<RunOutcome>;
  /** A child run, through the chokepoint (`ctx.runTool`). */
  runDetailed(req: RunRequest): Promise<RunOutcome>;
  /** Resolves with the run once it is no longer RUNNING (any instance). */
  awaitFinal(runId: string): Promise<RunRecord>;
  /** Resumes a parked run whose interactions are all answered (`park-resume.ts`). */
  resume(runId: string): Promise<RunOutcome>;
  /** Told of a parked run's end on this instance (resumed to an outcome, parked again, expired or cancelled). */
  parkEnded(run: RunRecord): void;
}
