import type { AttemptRecord, RunEventType, RunRecord } from "../dispatch/run-record.ts";
import type { Scrubber } from "../secrets/secrets.ts";
import type { RunProgress } from "../tools/tool-update.ts";

/**
 * The writes of the run log (docs/run-lifecycle.md §9): each is one job of a group
 * commit, atomic on its own, written with the other jobs of its batch in one
 * transaction. Every value is already in the form it is stored in (scrubbed of secrets,
 * made storable); `src/runlog/log-writer.ts` makes it so.
 */
export type LogJob =
  | StartJob
  | ClaimJob
  | AttemptJob
  | ProgressJob
  | FinishJob
  | RescrubJob
  | AgentEventJob
  | AgentFinishJob
  | AgentCheckpointJob;

/** A new run and its RUN_STARTED event. Result: the event's seq, or null when the idempotency scope is taken. */
export interface StartJob {
  kind: "start";
  run: RunRecord;
  /** The stored idempotency scope (`scopeKey`), or null. */
  scope: string | null;
  instanceId: string;
  at: string;
  /** What another instance needs to execute the run again (docs/run-lifecycle.md §11.4); absent: nothing. */
  replay?: RunReplay;
}

/** The event a start job writes: a background run's first is RUN_QUEUED, a synchronous one's RUN_STARTED. */
export function startEventType(run: RunRecord): "RUN_QUEUED" | "RUN_STARTED" {
  return run.status === "QUEUED" ? "RUN_QUEUED" : "RUN_STARTED";
}

/** A run's dispatch options, stored so that another instance can execute it (queued, re-driven). */
export interface RunReplay {
  idempotencyKey: string | null;
  timeoutSeconds: number | null;
  /** The stored input is the input it runs with. */
  replayable: boolean;
  /**
   * A synchronous dispatch's run stored QUEUED while it waits for its concurrency slots in its own request
   * (docs/flow-control.md §3): no other instance executes it. Absent: false.
   */
  syncWait?: boolean;
}

/**
 * A QUEUED run taken by `instanceId` (docs/run-lifecycle.md §11.2): its row moves QUEUED → RUNNING with this owner and
 * its RUN_STARTED event (snapshot: `run`, as it now is) is written, only if the run is still QUEUED (a synchronous
 * waiter's `syncWait` and its `details`, its `waitingFor`, are cleared with it) — the
 * compare-and-set that lets exactly one claimant win across instances. Result: the seq, or null when the run was no
 * longer QUEUED (another instance claimed it, it was cancelled).
 */
export interface ClaimJob {
  kind: "claim";
  run: RunRecord;
  instanceId: string;
  at: string;
}

/**
 * A failed attempt that will be retried, with its ATTEMPT_FAILED event, written only if the
 * run is still RUNNING. Result: the seq, or null when the run had already ended elsewhere.
 */
export interface AttemptJob {
  kind: "attempt";
  run: RunRecord;
  attempt: AttemptRecord;
  at: string;
}

/**
 * A body's update (`ctx.onUpdate`) as a RUN_PROGRESS event, its snapshot the run as it is,
 * written only if the run is still RUNNING. Result: the seq, or null when the run had ended.
 */
export interface ProgressJob {
  kind: "progress";
  run: RunRecord;
  progress: RunProgress;
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
  /**
   * The run redacted a value while it ran: its rows stored before are rewritten scrubbed with this, in the same
   * transaction.
   */
  rescrub?: Scrubber;
}

/**
 * A body redacted a value (`ctx.redact`): the rows this run stored before it knew the
 * value (its input, its events' snapshots and progress, its attempts' messages) are read
 * and written back scrubbed with `scrubber`, the run's scope (`src/runlog/rescrub.ts`).
 * Result: how many rows it rewrote.
 */
export interface RescrubJob {
  kind: "rescrub";
  runId: string;
  scrubber: Scrubber;
}

/** One agent stream entry. Result: null. */
export interface AgentEventJob {
  kind: "agentEvent";
  runId: string;
  type: string;
  payload: unknown;
  /** Set: written only while the run is RUNNING and owned by this instance (owner fencing, agent-stream.md §4.3). */
  owner?: string;
}

/**
 * An agent run's progress (docs/agent-stream.md §4.3): stored as its checkpoint's `progress`, the rest of the
 * checkpoint kept, only while the run is RUNNING and owned by `owner`. Ordered with the run's entries. Result: 1 when
 * written, null when the run is no longer RUNNING here.
 */
export interface AgentCheckpointJob {
  kind: "agentCheckpoint";
  runId: string;
  owner: string;
  progress: unknown;
}

/**
 * An agent run's last entry and its end, together, written only while the run is RUNNING. Result: 1 when written, null
 * when the run had already ended.
 */
export interface AgentFinishJob {
  kind: "agentFinish";
  runId: string;
  type: string;
  payload: unknown;
  status: string;
  checkpoint: unknown;
  finishedAt: string;
  /** Tokens this launch of the run used: added to the run's stored totals. */
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
  /** Set: written only while the run is owned by this instance (owner fencing). */
  owner?: string;
}

/** What a job resolves with: a run event's seq, or null (see each job). */
export type JobResult = number | null;

/**
 * A database's way of writing one batch in one transaction: one result per job, in
 * order. It throws (having rolled the whole batch back) when any job fails for a reason
 * other than those the jobs above answer with null.
 */
export type WriteBatch = (jobs: readonly LogJob[]) => Promise<JobResult[]>;

/**
 * Writes batches through `write`; when one fails it is written again one job per
 * transaction, so only the failing job's caller gets the error. An agent stream whose
 * entry failed is *broken*: its later entries fail without being written, until its end
 * (`agentFinish`) is written, so its stored entries never have a gap in `seq` even though
 * a run submits entries before the earlier ones are committed (`agent/agent-runner.ts`).
 */
export function isolatingFailures(write: WriteBatch): (jobs: readonly LogJob[]) => Promise<(JobResult | Error)[]> {
  const broken = new Set<string>();
  const refused = (j: LogJob) => (j.kind === "agentEvent" || j.kind === "agentCheckpoint") && broken.has(j.runId);
  const settled = (j: LogJob, r: JobResult | Error) => {
    if (j.kind === "agentEvent" && r instanceof Error) broken.add(j.runId);
    if (j.kind === "agentFinish") broken.delete(j.runId);
    return r;
  };
  const one = async (j: LogJob): Promise<JobResult | Error> => {
    if (refused(j))
      return new Error(`an earlier entry of agent run ${"runId" in j ? j.runId : ""} could not be stored`);
    try {
      return settled(j, (await write([j]))[0]);
    } catch (e) {
      return settled(j, e instanceof Error ? e : new Error(String(e)));
    }
  };
  return async (jobs) => {
    if (jobs.length === 1 || jobs.some(refused)) {
      const results: (JobResult | Error)[] = [];
      for (const j of jobs) results.push(await one(j));
      return results;
    }
    try {
      const results = await write(jobs);
      jobs.forEach((j, i) => settled(j, results[i]));
      return results;
    } catch {
      const results: (JobResult | Error)[] = [];
      for (const j of jobs) results.push(await one(j));
      return results;
    }
  };
}
