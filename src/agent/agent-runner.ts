import type { InFlight } from "../runlog/in-flight.ts";
import { scrubAgentEntry } from "../secrets/value-fields.ts";
import type { AgentContext } from "./agent.ts";
import { classifyAgentError } from "./agent-errors.ts";
import { agentToolPort } from "./agent-tools.ts";
import type { AgentRunStatus } from "./agent-runs.ts";
import type { AgentHost as AgentService, AgentServiceDeps } from "./agent-host.ts";
import type { AdmittedRun } from "./agent-start.ts";
import { withMark } from "./fork.ts";
import type { AgentEventRecord, RunFailedRecord, RunUsage, StreamEvent, TerminalEvent } from "./events.ts";
import { UsageTally } from "./run-usage.ts";
import { turnNumbering } from "./turn-numbers.ts";
import { endParkedCalls } from "./agent-cancel.ts";

/** Entries a run may have submitted and not yet seen stored. */
const MAX_UNSTORED = 64;

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
 * its seq (group-committed with the entries after it), then published. A thrown error, an abort or a stream that ends
 * without a
 * terminal ends the run with a `run_failed` record (docs/agent-stream.md §4). Every tool
 * call of the run carries its signal: aborting the run (cancel, shutdown, fencing) cancels
 * the calls in flight, and the run ends CANCELLED (docs/agent-stream.md §4.1).
 */
export function launchRun(
  agents: Pick<AgentService, "store" | "services">,
  deps: Pick<AgentServiceDeps, "dispatcher" | "bus" | "log" | "secrets" | "observer">,
  inflight: InFlight<void>,
  run: AdmittedRun,
): void {
  const { dispatcher, bus, log, secrets } = deps;
  const { runId, threadId, caller, options } = run;
  const controller = new AbortController();
  let checkpoint: unknown = null;
  const usage = new UsageTally();
  const tools = agentToolPort(dispatcher, { runId, caller, signal: controller.signal });
  const ctx: AgentContext = {
    runId,
    threadId,
    caller,
    signal: controller.signal,
    log: log.child({ agentRunId: runId }),
    runTool: tools.runTool,
    cancelTool: tools.cancelTool,
    services: agents.services,
    resuming: run.resuming,
    prepared: run.prepared,
    checkpoint: (value) => {
      checkpoint = value;
    },
  };
  // Entries are submitted as the stream yields them and group-committed; each is
  // published once its batch commits (in order: batches commit in order). `stored` is the
  // last seq known stored: the writer stores nothing of a run after an entry it failed to
  // store (`runlog/jobs.ts`), so the stored entries are exactly 1..stored, with no gap.
  let next = run.seqBase ?? 0;
  let stored = next;
  let failure: unknown = null;
  const writes: Promise<void>[] = [];
  const settle = () => Promise.all(writes.splice(0));
  const numbered = turnNumbering();
  const done = (async () => {
    try {
      for await (const raw of run.agentInstance.astream(options, ctx) as AsyncIterable<StreamEvent>) {
        if (failure) throw failure;
        const event = numbered(raw);
        if (event.type === "run_usage") countUsage(usage, event, deps.observer);
        const rec = scrubAgentEntry(secrets, {
          ...withThread(event, threadId),
          agent: event.agent ?? null,
          seq: ++next,
          runId,
        }) as AgentEventRecord;
        if (rec.final) {
          // A cancelled run ends CANCELLED, whatever its agent made of the abort (docs/agent-stream.md §4.1).
          if (controller.signal.aborted) throw controller.signal.reason;
          await settle();
          if (failure) throw failure;
          // Not stored: another instance failed the run meanwhile (fencing); its record stands.
          if (
            !(await agents.store.finish(
              rec,
              STATUS_OF[rec.type as TerminalEvent["type"]],
              withMark(checkpoint, run.mark),
              usage.sum,
            ))
          )
            return;
          stored = rec.seq;
          bus.publish("agentEvent", rec);
          return;
        }
        writes.push(
          agents.store.appendEvent(rec).then(
            () => {
              stored = rec.seq;
              bus.publish("agentEvent", rec);
            },
            (e: unknown) => void (failure ??= e),
          ),
        );
        // Bounded: a stream far ahead of its storage waits for it.
        if (writes.length >= MAX_UNSTORED) await writes.shift();
      }
      throw new Error("agent stream contract violated: the stream ended without a terminal event");
    } catch (e) {
      await settle();
      const c = classifyAgentError(e, controller.signal.aborted, controller.signal.reason);
      if (c.unexpected)
        log.error("agent run failed unexpectedly", {
          agentRunId: runId,
          error: e instanceof Error ? `${e.name}: ${e.message}` : String(e),
        });
      const rec: RunFailedRecord = {
        type: "run_failed",
        final: true,
        seq: stored + 1,
        runId,
        kind: c.kind,
        message: secrets.scrubText(c.message),
      };
      // Nothing will continue the calls it left parked: they end with it (docs/agent-stream.md §4.1).
      await endParkedCalls(agents.services.runs, dispatcher, runId, rec.message, log);
      try {
        // The thread mark stays: a failed or cancelled run can be forked past (docs/agent-stream.md §6.1).
        if (
          !(await agents.store.finish(
            rec,
            c.kind === "CANCELLED" ? "CANCELLED" : "FAILED",
            withMark(null, run.mark),
            usage.sum,
          ))
        )
          return;
      } catch (err) {
        log.error("storing an agent run's failure failed", { agentRunId: runId, error: (err as Error).message });
      }
      bus.publish("agentEvent", rec);
    }
  })();
  inflight.add(runId, controller, done);
}

/**
 * An InterruptFinal names the thread to resume on: the run's, a sub-agent's surfaced one included (docs/agent-stream.md
 * §2).
 */
function withThread(event: StreamEvent, threadId: string): StreamEvent {
  return event.type === "interrupt_final" && !event.threadId ? { ...event, threadId } : event;
}

/** A RunUsage adds to the run's stored totals and to `tai42_llm_tokens_total` (docs/agent-stream.md §2.5). */
function countUsage(tally: UsageTally, event: RunUsage, observer: AgentServiceDeps["observer"]): void {
  tally.add(event);
  observer?.llmTokens(event.model, event.inputTokens ?? 0, event.outputTokens ?? 0);
}
