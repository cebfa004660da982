import { classifyAgentError } from "./agent-errors.ts";
import type { AgentHost, AgentServiceDeps } from "./agent-host.ts";
import type { RunFailedRecord } from "./events.ts";
import { withMark } from "./fork.ts";

/**
 * Ends a stored agent run FAILED when continuing it failed before its loop began (an auto-resume after an answer,
 * a continuation after its instance died: docs/agent-stream.md §4.3): its final record takes the next seq, the
 * message scrubbed, its fork mark kept. `owner` fences the write to the instance that claimed the run; the event is
 * published only when the end was written.
 */
export async function failRelaunch(
  agents: Pick<AgentHost, "store">,
  deps: Pick<AgentServiceDeps, "secrets" | "bus">,
  run: { runId: string; seqBase: number; mark: number | undefined; owner?: string },
  error: unknown,
): Promise<void> {
  const c = classifyAgentError(error, false);
  const rec: RunFailedRecord = {
    type: "run_failed",
    final: true,
    seq: run.seqBase + 1,
    runId: run.runId,
    kind: c.kind,
    message: deps.secrets.scrubText(c.message),
  };
  if (await agents.store.finish(rec, "FAILED", withMark(null, run.mark), undefined, run.owner))
    deps.bus.publish("agentEvent", rec);
}
