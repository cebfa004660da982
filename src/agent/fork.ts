import { isOwnerOrAdmin } from "../auth/ownership.ts";
import { ApiError } from "../errors.ts";
import type { AgentRunOptions } from "./agent.ts";
import { PAUSED, type AgentRunRecord, type AgentRunStatus } from "./agent-runs.ts";
import type { AgentHost as AgentService, StartRequest } from "./agent-host.ts";

/** A run forked past: the run, and its checkpoint in its thread (the last thread row when it started). */
export interface Fork {
  run: AgentRunRecord;
  mark: number;
}

/** Runs whose turn was aborted: failed (timed out, interrupted by a restart, …) or cancelled. */
const FORKABLE: readonly AgentRunStatus[] = ["FAILED", "CANCELLED"];

/**
 * Admission of a fork (docs/agent-stream.md §6.1): `resumeCheckpointId` without `resume`
 * names a failed or cancelled run of the caller; the new run continues the thread from
 * that run's checkpoint, with that run's options (the fork's own fields override them).
 * An unknown checkpoint and one the caller may not see are the same NOT_FOUND.
 */
export async function admitFork(
  agents: Pick<AgentService, "store">,
  req: StartRequest,
  options: AgentRunOptions,
): Promise<{ fork: Fork; options: AgentRunOptions; agent: string }> {
  const id = String(options.resumeCheckpointId);
  const run = await agents.store.get(id);
  if (!run || !run.threadId || !isOwnerOrAdmin(req.caller, run))
    throw new ApiError("NOT_FOUND", `no checkpoint "${id}"`);
  if (options.threadId !== undefined && options.threadId !== run.threadId)
    throw ApiError.badInput(
      `checkpoint "${id}" is not of thread "${options.threadId}": a run forks only within its own thread`,
      [{ path: "/resumeCheckpointId", message: "is a checkpoint of another thread" }],
    );
  if (req.agent && req.agent !== run.agent)
    throw ApiError.badInput(`checkpoint "${id}" is a run of agent "${run.agent}", not "${req.agent}"`, [
      { path: "/agent", message: `must be "${run.agent}"` },
    ]);
  if (!FORKABLE.includes(run.status))
    throw new ApiError(
      "CONFLICT",
      `run ${id} is ${run.status}: only a failed or cancelled run is forked past${PAUSED.includes(run.status) ? "; a paused run continues with resume" : ""}`,
    );
  const mark = markOf(run.checkpoint);
  if (mark === null) throw new ApiError("CONFLICT", `run ${id} stored no checkpoint in its thread to fork from`);
  const inherited = Object.fromEntries(
    Object.entries(run.input).filter(([k]) => k !== "resume" && k !== "resumeCheckpointId"),
  );
  return { fork: { run, mark }, options: { ...inherited, ...options, threadId: run.threadId }, agent: run.agent };
}

/** A run's checkpoint in its thread, from its stored checkpoint; null when it has none (a run from before marks). */
export function markOf(checkpoint: unknown): number | null {
  const mark = (checkpoint as { mark?: unknown } | null)?.mark;
  return typeof mark === "number" ? mark : null;
}

/** `checkpoint` with the run's thread mark kept in it, so a failed run can be forked past. */
export function withMark(checkpoint: unknown, mark: number | undefined): unknown {
  if (mark === undefined) return checkpoint;
  if (checkpoint === null || checkpoint === undefined) return { mark };
  return typeof checkpoint === "object" && !Array.isArray(checkpoint) ? { ...checkpoint, mark } : checkpoint;
}
