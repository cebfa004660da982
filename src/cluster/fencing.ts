import type { Db } from "../db/client.ts";
import { FENCED } from "../dispatch/run-execute.ts";
import type { Logger } from "../log.ts";

/** A run engine whose runs in flight here can be stopped one by one. */
export interface FencedEngine {
  /** The ids of the runs executing on this instance. */
  runningIds(): string[];
  /** Aborts a run held here with `reason`; false when it is not held here. */
  fence(runId: string, reason: string): boolean;
  /** Aborts a run held here as `cancelRun` does; false when it is not held here. */
  cancelHeld(runId: string): boolean;
}

/** What {@link Fencing} needs. */
export interface FencingDeps {
  db: Db;
  /** This instance: a tool run it executes must still be RUNNING and owned by it, an agent run claimed by it. */
  instanceId: string;
  tools: FencedEngine;
  agents: FencedEngine;
  log: Logger;
}

/**
 * Fencing (docs/run-lifecycle.md §8): an instance that stalled past
 * TAI_DEAD_AFTER_SECONDS (a long GC pause, SIGSTOP, a frozen VM) was declared gone by the
 * others, and its runs were re-driven elsewhere or marked OUTCOME_UNKNOWN (docs/run-lifecycle.md §11.4).
 * When it wakes, its runs' bodies must not carry on as if nothing happened: after every
 * heartbeat, the runs it still executes whose stored record another instance already
 * failed are aborted. The store guarantees the rest: an outcome, a park or a retried
 * attempt is written only while the run is still RUNNING, so nothing is recorded over
 * the first outcome. A retried attempt that finds its run ended stops at once
 * (`dispatch/run-execute.ts`), without waiting for the next heartbeat. An agent run is
 * aborted once it is no longer owned here: ended, or claimed and continued by another
 * instance (docs/agent-stream.md §4.3), whose entries the store no longer takes from here.
 *
 * The same read finds the cancel requests stored for the runs still held here (docs/run-lifecycle.md §4): those runs
 * are cancelled, so a cancel whose bus message never arrived waits at most one heartbeat.
 */
export class Fencing {
  constructor(private readonly deps: FencingDeps) {}

  /**
   * Aborts the runs held here that another instance failed; returns their ids. `declaredGone`: the heartbeat found this
   * instance's row removed.
   */
  async check(declaredGone: boolean): Promise<string[]> {
    const { db, tools, agents, log, instanceId } = this.deps;
    if (declaredGone)
      log.warn(
        "this instance was declared gone by another one (its heartbeat lapsed); it registered again, and stops the runs that were failed meanwhile",
      );
    const toolIds = tools.runningIds();
    const agentIds = agents.runningIds();
    if (!toolIds.length && !agentIds.length) return [];
    const [runs, agentRuns] = await Promise.all([
      toolIds.length
        ? db.run.findMany({
            // Re-driven elsewhere (another owner), interrupted or failed meanwhile: no longer this instance's to write.
            // Or still this instance's, with a cancel asked for. (A synchronous dispatch's run waiting here for its
            // slots, QUEUED, is this instance's too.)
            where: {
              id: { in: toolIds },
              OR: [
                {
                  AND: [
                    { NOT: { status: "RUNNING", instanceId } },
                    { NOT: { status: "QUEUED", syncWait: true, instanceId } },
                  ],
                },
                { cancelRequestedAt: { not: null } },
              ],
            },
            select: { id: true, status: true, instanceId: true, cancelRequestedAt: true, syncWait: true },
          })
        : [],
      agentIds.length
        ? db.agentRun.findMany({
            where: { id: { in: agentIds } },
            select: { id: true, status: true, checkpoint: true, cancelRequestedAt: true },
          })
        : [],
    ]);
    const held = (r: (typeof runs)[number]) =>
      r.instanceId === instanceId && (r.status === "RUNNING" || (r.status === "QUEUED" && r.syncWait));
    // An agent run is fenced once it is no longer owned here: ended (failed, or continued and finished elsewhere), or
    // RUNNING under another instance (docs/agent-stream.md §4.3).
    const owned = (r: (typeof agentRuns)[number]) => r.status === "RUNNING" && ownedBy(r.checkpoint, instanceId);
    const cancelled = [
      ...runs.filter((r) => held(r) && tools.cancelHeld(r.id)),
      ...agentRuns.filter((r) => owned(r) && r.cancelRequestedAt !== null && agents.cancelHeld(r.id)),
    ].map((r) => r.id);
    if (cancelled.length) log.info("cancelled runs whose cancel was read from the store", { runIds: cancelled });
    const stopped = [
      ...runs.filter((r) => !held(r) && tools.fence(r.id, FENCED)),
      ...agentRuns.filter((r) => !owned(r) && agents.fence(r.id, FENCED)),
    ].map((r) => r.id);
    if (stopped.length)
      log.warn("stopped runs that another instance failed while this one looked gone; their first outcome stands", {
        runIds: stopped,
      });
    return stopped;
  }
}

/** Whether a RUNNING agent run's checkpoint names `instanceId` as its owner (any, when none is given). */
function ownedBy(checkpoint: unknown, instanceId: string | undefined): boolean {
  if (!instanceId) return true;
  return ((checkpoint ?? {}) as { instanceId?: unknown }).instanceId === instanceId;
}
