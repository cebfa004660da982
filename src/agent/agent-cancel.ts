import type { Caller } from "../auth/roles.ts";
import type { Dispatcher } from "../dispatch/dispatcher.ts";
import type { RunStore } from "../dispatch/run-store.ts";
import type { Bus } from "../events/bus.ts";
import type { Logger } from "../log.ts";
import type { AgentRunRecord } from "./agent-runs.ts";
import type { AgentHost as AgentService } from "./agent-host.ts";

/**
 * Cancels an agent run on a caller's behalf (docs/agent-stream.md §4.1): only a run the
 * caller may see (its own, or any for an ADMIN; NOT_FOUND otherwise). A RUNNING run is
 * aborted on whichever instance runs it — its tool calls in flight and its sub-agents with
 * it — and the run is returned once it has ended (CANCELLED, unless it ended otherwise
 * first). A run that is not RUNNING (ended, or paused) is returned unchanged.
 */
export async function cancelAgentRun(
  agents: Pick<AgentService, "open" | "cancel" | "store">,
  bus: Bus,
  runId: string,
  caller: Caller,
): Promise<AgentRunRecord> {
  const run = await agents.open(runId, caller);
  if (run.status !== "RUNNING") return run;
  // Stored first: the instance running it reads it after its next heartbeat, whatever becomes of the bus.
  if ((await agents.store.requestCancel(runId).catch(() => true)) === false)
    return (await agents.store.get(runId)) ?? run;
  let wake = () => {};
  const unlisten = bus.listen("agentEvent", (e) => {
    if (e.runId === runId && e.final) wake();
  });
  // Redis delivers at most once: the request is repeated until the run has ended.
  const ask = () => void (agents.cancel(runId) || bus.publish("agentRunCancel", { runId }));
  ask();
  const again = setInterval(ask, 1000);
  try {
    for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
      const now = await agents.store.get(runId);
      if (!now || now.status !== "RUNNING") return now ?? run;
      // The bus wakes us early; the poll covers a Redis outage.
      await new Promise<void>((r) => {
        const t = setTimeout(r, delay);
        wake = () => (clearTimeout(t), r());
      });
    }
  } finally {
    clearInterval(again);
    unlisten();
  }
}

/**
 * Ends CANCELLED the tool runs an agent run left PARKED when it fails or is cancelled
 * (docs/agent-stream.md §4.1): nothing will continue them, so their interactions are
 * cancelled too and an answer can no longer resume a tool for a run that is gone. Its
 * sub-agents' calls are the run's own (same parent). Never throws: a failure is logged.
 */
export async function endParkedCalls(
  runs: Pick<RunStore, "list">,
  dispatcher: Pick<Dispatcher, "endParked">,
  runId: string,
  message: string,
  log: Logger,
): Promise<void> {
  try {
    for (;;) {
      const parked = await runs.list({ parentRunId: runId, status: "PARKED" }, 100);
      let ended = 0;
      for (const t of parked)
        if (await dispatcher.endParked(t.id, "CANCELLED", `its agent run ended: ${message}`)) ended++;
      if (parked.length < 100 || !ended) return;
    }
  } catch (e) {
    log.warn("cancelling the parked tool runs of an ended agent run failed", {
      agentRunId: runId,
      error: (e as Error).message,
    });
  }
}
