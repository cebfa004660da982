import type { AttemptRecord, RunEventType, RunRecord } from "../dispatch/run-record.ts";

/**
 * The writes of the run log (docs/run-lifecycle.md §9): each is one job of a group
 * commit, atomic on its own, written with the other jobs of its batch in one
 * transaction. Every value is already in the form it is stored in (scrubbed of secrets,
 * made storable); `src/runlog/log-writer.ts` makes it so.
 */
export type LogJob = StartJob | AttemptJob | FinishJob | AgentEventJob | AgentFinishJob;

/** A new run and its RUN_STARTED event. Result: the event's seq, or null when the idempotency scope is taken. */
export interface StartJob {
  kind: "start";
  run: RunRecord;
  /** The stored idempotency scope (`scopeKey`), or null. */
  scope: string | null;
  instanceId: string;
  at: string;
}

/** A failed attempt that will be retried, with its ATTEMPT_FAILED event. Result: the seq. */
export interface AttemptJob {
  kind: "attempt";
  run: RunRecord;
  attempt: AttemptRecord;
  at: string;
}

/**
 * A run's outcome (or its park), its last attempt and its closing event, written only if
 * the run is still RUNNING. Result: the seq, or null when the run had already ended.
 */
export interface FinishJob {
  kind: "finish";
  run: RunRecord;
  attempt: AttemptRecord | null;
  type: RunEventType;
  at: string;
}

/** One agent stream entry. Result: null. */
export interface AgentEventJob {
  kind: "agentEvent";
  runId: string;
  type: string;
  payload: unknown;
}

/** An agent run's last entry and its end, together. Result: null. */
export interface AgentFinishJob {
  kind: "agentFinish";
  runId: string;
  type: string;
  payload: unknown;
  status: string;
  checkpoint: unknown;
  finishedAt: string;
}

/** What a job resolves with: a run event's seq, or null (see each job). */
export type JobResult = number | null;

/** A database's way of writing one batch: one result (or error) per job, in order. */
export interface LogBackend {
  write(jobs: readonly LogJob[]): Promise<(JobResult | Error)[]>;
}

/**
 * A backend over `write`, which writes a whole batch in one transaction or throws: when a
 * batch fails (rolled back whole), it is written again one job per transaction, so only
 * the failing job's caller gets the error.
 */
export function isolatingFailures(write: (jobs: readonly LogJob[]) => Promise<(JobResult | Error)[]>): LogBackend {
  const backend: LogBackend = {
    async write(jobs) {
      try {
        return await write(jobs);
      } catch (e) {
        if (jobs.length === 1) return [e instanceof Error ? e : new Error(String(e))];
        const results: (JobResult | Error)[] = [];
        for (const j of jobs) results.push((await backend.write([j]))[0]);
        return results;
      }
    },
  };
  return backend;
}
