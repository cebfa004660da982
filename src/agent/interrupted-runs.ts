import type { Bus } from "../events/bus.ts";
import type { Logger } from "../log.ts";
import type { RunFailedRecord } from "./events.ts";

/** What fails the agent runs left RUNNING by instances that are gone (the agent service). */
export interface InterruptedAgentRuns {
  /**
   * Fails the agent runs of instances not in `liveIds` as "interrupted by restart".
   * Contract: stores each run's `run_failed` record exactly once (across instances) and
   * returns those records, not yet published.
   */
  failInterrupted(liveIds: string[]): Promise<RunFailedRecord[]>;
  /**
   * Continues here the agent runs of instances not in `liveIds` that can go on (docs/agent-stream.md §4.3); returns
   * the ids it claimed. Contract: a run is claimed by one instance only.
   */
  continueInterrupted?(liveIds: string[]): Promise<string[]>;
}

/** Fails the agent runs of instances not in `liveIds` and publishes their `run_failed` records; returns their ids. */
export async function failAgentRuns(
  deps: { agents: InterruptedAgentRuns; bus: Bus; log: Logger },
  liveIds: string[],
): Promise<string[]> {
  const failed = await deps.agents.failInterrupted(liveIds);
  for (const rec of failed) deps.bus.publish("agentEvent", rec);
  if (failed.length) deps.log.warn("agent runs interrupted by a restart were marked FAILED", { count: failed.length });
  return failed.map((rec) => rec.runId);
}
