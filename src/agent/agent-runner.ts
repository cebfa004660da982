import type { InFlight } from "../runlog/in-flight.ts";
import type { SecretScope } from "../secrets/secrets.ts";
import { scrubAgentEntry } from "../secrets/value-fields.ts";
import type { AgentContext } from "./agent.ts";
import { classifyAgentError } from "./agent-errors.ts";
import { agentToolPort } from "./agent-tools.ts";
import type { AgentRunStatus } from "./agent-runs.ts";
import type { AgentHost, AgentServiceDeps } from "./agent-host.ts";
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

type RunnerAgents = Pick<AgentHost, "store" | "services">;
type RunnerDeps = Pick<AgentServiceDeps, "dispatcher" | "bus" | "log" | "secrets" | "observer"> &
  Partial<Pick<AgentServiceDeps, "instanceId">>;

/** One launched run: what it is given, and what its steps share while its stream goes. */
interface Running {
  agents: RunnerAgents;
  deps: RunnerDeps;
  run: AdmittedRun;
  controller: AbortController;
  /** The run's scope of secrets (`AdmittedRun.secrets`): its events, failure and tool calls are scrubbed of it. */
  secrets: SecretScope;
  usage: UsageTally;
  /** The last checkpoint the agent gave. */
  checkpoint: unknown;
  /** The last seq given out. */
  next: number;
  /** The last seq known stored. */
  stored: number;
  /** The first failure to store an entry. */
  failure: unknown;
  /** The entries submitted and not yet seen stored. */
  writes: Promise<void>[];
  /** A continuation's tool steps stored before it (`<type> <agent> <callId>`): not stored twice. */
  seen: Set<string>;
}

/** The key of a tool step a continuation may yield again (docs/agent-stream.md §4.3). */
export function stepKey(e: { type: string; agent?: string | null; callId?: string }): string | null {
  return e.type === "tool_call_step" || e.type === "tool_result_step" ? `${e.type} ${e.agent ?? ""} ${e.callId}` : null;
}

/** Stores the run's progress after every entry submitted before it; a run no longer owned here stops. */
function submitProgress(r: Running, value: unknown): void {
  const owner = r.deps.instanceId;
  if (!owner) return;
  r.writes.push(
    r.agents.store.progress(r.run.runId, owner, value).then(
      (ok) => void (ok || (r.failure ??= new Error("the agent run is no longer running on this instance"))),
      (e: unknown) => void (r.failure ??= e),
    ),
  );
}

/** Waits for every entry submitted so far. */
const settleWrites = (r: Running) => Promise.all(r.writes.splice(0));

/** What the agent's stream is given: the run, its caller and signal, its tools, and where its checkpoint goes. */
function agentContext(r: Running): AgentContext {
  const { runId, threadId, caller } = r.run;
  const tools = agentToolPort(r.deps.dispatcher, { runId, caller, signal: r.controller.signal, secrets: r.secrets });
  return {
    runId,
    threadId,
    caller,
    signal: r.controller.signal,
    log: r.deps.log.child({ agentRunId: runId }),
    runTool: tools.runTool,
    cancelTool: tools.cancelTool,
    services: r.agents.services,
    secrets: r.secrets,
    resuming: r.run.resuming,
    prepared: r.run.prepared,
    checkpoint: (value) => {
      r.checkpoint = value;
    },
    progress: (value) => submitProgress(r, value),
  };
}

/**
 * Stores the run's terminal with its status, checkpoint and usage once every entry before it is stored, then
 * publishes it.
 */
async function storeTerminal(r: Running, rec: AgentEventRecord): Promise<void> {
  // A cancelled run ends CANCELLED, whatever its agent made of the abort (docs/agent-stream.md §4.1).
  if (r.controller.signal.aborted) throw r.controller.signal.reason;
  await settleWrites(r);
  if (r.failure) throw r.failure;
  const status = STATUS_OF[rec.type as TerminalEvent["type"]];
  // Not stored: another instance failed the run meanwhile (fencing); its record stands.
  const cp = withMark(r.checkpoint, r.run.mark);
  if (!(await r.agents.store.finish(rec, status, cp, r.usage.sum, r.deps.instanceId))) return;
  r.stored = rec.seq;
  r.deps.bus.publish("agentEvent", rec);
}

/** Submits an entry to be stored, then published once its batch commits; a stream far ahead of storage waits. */
async function submitEntry(r: Running, rec: AgentEventRecord): Promise<void> {
  r.writes.push(
    r.agents.store.appendEvent(rec, r.deps.instanceId).then(
      () => {
        r.stored = rec.seq;
        r.deps.bus.publish("agentEvent", rec);
      },
      (e: unknown) => void (r.failure ??= e),
    ),
  );
  // Bounded: a stream far ahead of its storage waits for it.
  if (r.writes.length >= MAX_UNSTORED) await r.writes.shift();
}

/** Records one event of the stream: numbered, counted, scrubbed, then stored. True once the run's terminal is. */
async function recordEvent(r: Running, numbered: ReturnType<typeof turnNumbering>, raw: StreamEvent): Promise<boolean> {
  if (r.failure) throw r.failure;
  const key = stepKey(raw);
  if (key && r.seen.has(key)) return false;
  const event = numbered(raw);
  if (event.type === "run_usage") countUsage(r.usage, event, r.deps.observer);
  const rec = scrubAgentEntry(r.secrets, {
    ...withThread(event, r.run.threadId),
    agent: event.agent ?? null,
    seq: ++r.next,
    runId: r.run.runId,
  }) as AgentEventRecord;
  if (!rec.final) {
    await submitEntry(r, rec);
    return false;
  }
  await storeTerminal(r, rec);
  return true;
}

/** Ends the run with a `run_failed` record after what it stored, its parked calls ended with it. */
async function failRun(r: Running, e: unknown): Promise<void> {
  const { agents, deps, run, controller } = r;
  const { log } = deps;
  const { runId } = run;
  await settleWrites(r);
  const c = classifyAgentError(e, controller.signal.aborted, controller.signal.reason);
  if (c.unexpected)
    log.error("agent run failed unexpectedly", {
      agentRunId: runId,
      error: e instanceof Error ? `${e.name}: ${e.message}` : String(e),
    });
  const rec: RunFailedRecord = {
    type: "run_failed",
    final: true,
    seq: r.stored + 1,
    runId,
    kind: c.kind,
    message: r.secrets.scrubText(c.message),
  };
  // Nothing will continue the calls it left parked: they end with it (docs/agent-stream.md §4.1).
  await endParkedCalls(agents.services.runs, deps.dispatcher, runId, rec.message, log);
  try {
    // The thread mark stays: a failed or cancelled run can be forked past (docs/agent-stream.md §6.1).
    const status = c.kind === "CANCELLED" ? "CANCELLED" : "FAILED";
    if (!(await agents.store.finish(rec, status, withMark(null, run.mark), r.usage.sum, deps.instanceId))) return;
  } catch (err) {
    log.error("storing an agent run's failure failed", { agentRunId: runId, error: (err as Error).message });
  }
  deps.bus.publish("agentEvent", rec);
}

/**
 * Runs an admitted run's stream in the background (a run does not belong to its
 * subscriber), tracked in `inflight` until it ends: each event is scrubbed, stored with
 * its seq (group-committed with the entries after it), then published. A thrown error, an abort or a stream that ends
 * without a
 * terminal ends the run with a `run_failed` record (docs/agent-stream.md §4). Every tool
 * call of the run carries its signal: aborting the run (cancel, shutdown, fencing) cancels
 * the calls in flight, and the run ends CANCELLED (docs/agent-stream.md §4.1).
 */
export function launchRun(agents: RunnerAgents, deps: RunnerDeps, inflight: InFlight<void>, run: AdmittedRun): void {
  // Entries are submitted as the stream yields them and group-committed; each is
  // published once its batch commits (in order: batches commit in order). `stored` is the
  // last seq known stored: the writer stores nothing of a run after an entry it failed to
  // store (`runlog/jobs.ts`), so the stored entries are exactly 1..stored, with no gap.
  const start = run.seqBase ?? 0;
  const r: Running = {
    agents,
    deps,
    run,
    controller: new AbortController(),
    secrets: run.secrets ?? deps.secrets.scope(),
    usage: new UsageTally(),
    checkpoint: null,
    next: start,
    stored: start,
    failure: null,
    writes: [],
    seen: run.storedSteps ?? new Set(),
  };
  const ctx = agentContext(r);
  const numbered = turnNumbering();
  const done = (async () => {
    try {
      for await (const raw of run.agentInstance.astream(run.options, ctx) as AsyncIterable<StreamEvent>)
        if (await recordEvent(r, numbered, raw)) return;
      throw new Error("agent stream contract violated: the stream ended without a terminal event");
    } catch (e) {
      await failRun(r, e);
    }
  })();
  inflight.add(run.runId, r.controller, done);
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
