import type { InFlight } from "../runlog/in-flight.ts";
import type { AgentContext } from "./agent.ts";
import { classifyAgentError } from "./agent-errors.ts";
import type { AgentRunStatus } from "./agent-runs.ts";
import type { AgentService, AgentServiceDeps } from "./agent-service.ts";
import type { AdmittedRun } from "./agent-start.ts";
import type { AgentEventRecord, RunFailedRecord, StreamEvent, TerminalEvent } from "./events.ts";

const STATUS_OF: Record<TerminalEvent["type"], AgentRunStatus> = {
  message_final: "SUCCEEDED",
  structured_final: "SUCCEEDED",
  interrupt_final: "INTERRUPTED",
  suspended_final: "SUSPENDED",
  asks_final: "ASKED",
};

/**
 * Runs an admitted run's stream in the background (a run does not belong to its
 * subscriber), tracked in `inflight` until it ends: each event is scrubbed, stored with
 * its seq, then published. A thrown error, an abort or a stream that ends without a
 * terminal ends the run with a `run_failed` record (docs/agent-stream.md §4).
 */
export function launchRun(
  agents: Pick<AgentService, "store" | "services">,
  deps: Pick<AgentServiceDeps, "dispatcher" | "bus" | "log" | "secrets">,
  inflight: InFlight<void>,
  run: AdmittedRun,
): void {
  const { dispatcher, bus, log, secrets } = deps;
  const { runId, threadId, caller, options } = run;
  const controller = new AbortController();
  let checkpoint: unknown = null;
  const ctx: AgentContext = {
    runId,
    threadId,
    caller,
    signal: controller.signal,
    log: log.child({ agentRunId: runId }),
    runTool: (tool, input) => dispatcher.runDetailed({ tool, input, caller, door: "agent", parentRunId: runId }),
    services: agents.services,
    resuming: run.resuming,
    prepared: run.prepared,
    checkpoint: (value) => {
      checkpoint = value;
    },
  };
  let seq = 0;
  const done = (async () => {
    try {
      for await (const event of run.agentInstance.astream(options, ctx) as AsyncIterable<StreamEvent>) {
        // `seq` counts stored entries only: an entry that failed to store leaves no gap
        // (a gap would hold every joiner waiting for it to be filled from the log).
        const rec = secrets.scrub({ ...event, agent: event.agent ?? null, seq: seq + 1, runId }) as AgentEventRecord;
        if (rec.final) {
          await agents.store.finish(rec, STATUS_OF[rec.type as TerminalEvent["type"]], checkpoint);
          seq = rec.seq;
          bus.publish("agentEvent", rec);
          return;
        }
        await agents.store.appendEvent(rec);
        seq = rec.seq;
        bus.publish("agentEvent", rec);
      }
      throw new Error("agent stream contract violated: the stream ended without a terminal event");
    } catch (e) {
      const c = classifyAgentError(e, controller.signal.aborted);
      if (c.unexpected) log.error("agent run failed unexpectedly", { agentRunId: runId, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
      const rec: RunFailedRecord = { type: "run_failed", final: true, seq: ++seq, runId, kind: c.kind, message: secrets.scrubText(c.message) };
      try {
        await agents.store.finish(rec, c.kind === "CANCELLED" ? "CANCELLED" : "FAILED", null);
      } catch (err) {
        log.error("storing an agent run's failure failed", { agentRunId: runId, error: (err as Error).message });
      }
      bus.publish("agentEvent", rec);
    }
  })();
  inflight.add(runId, controller, done);
}
