import { publicErrorName } from "../../errors.ts";
import type { ExecutionMode } from "../../tools/definition.ts";
import type { StreamEvent } from "../events.ts";
import type { CallOutcome } from "./checkpoint.ts";

/** One call of a batch, ready to run. */
export interface BatchItem {
  callId: string;
  tool: string;
  /** Event-facing arguments (redacted for secret tools). */
  shownArgs: Record<string, unknown>;
  mode: ExecutionMode;
  /** The interrupt whose decision the call carries out (a resumed run). */
  interruptId?: string;
  /**
   * Runs the call. Contract: resolves with an outcome and never rejects; `emit` forwards
   * events produced meanwhile (a sub-agent's steps) into the parent stream.
   */
  run(emit: (e: StreamEvent) => void): Promise<CallOutcome>;
}

/**
 * Runs one model turn's calls (docs/agent-stream.md §5.2) and streams their events:
 * every ToolCallStep first, in the order asked; then each ToolResultStep in that same
 * order as soon as it and every earlier call are done, with events the calls emit
 * meanwhile interleaved. Consecutive parallel calls run concurrently; a sequential call
 * runs alone. Returns the outcomes in the order asked. A parked or asking call has no
 * ToolResultStep in this run.
 */
export async function* runBatch(
  items: BatchItem[],
  agent: string | null,
  onResult?: (callId: string, outcome: CallOutcome) => void,
): AsyncGenerator<StreamEvent, CallOutcome[]> {
  for (const it of items)
    yield {
      type: "tool_call_step",
      final: false,
      tool: it.tool,
      args: it.shownArgs,
      callId: it.callId,
      ...(it.interruptId ? { resumedInterruptId: it.interruptId } : {}),
      agent,
    };

  const side: StreamEvent[] = [];
  let wake: (() => void) | null = null;
  const emit = (e: StreamEvent) => {
    side.push(e);
    wake?.();
  };
  const safe = (it: BatchItem) =>
    it.run(emit).catch((e: unknown): CallOutcome => ({
      status: "done",
      isError: true,
      result: { kind: "INTERNAL", message: `the call failed unexpectedly (${publicErrorName(e)})` },
      modelOutput: { type: "error-text", value: "the call failed unexpectedly" },
      terminate: false,
      value: null,
    }));

  const promises = scheduled(items, safe);

  const outcomes: CallOutcome[] = [];
  const settled = new Map<number, CallOutcome>();
  promises.forEach((p, i) =>
    p.then((o) => {
      settled.set(i, o);
      wake?.();
    }),
  );
  for (let i = 0; i < items.length;) {
    while (side.length) yield side.shift()!;
    if (settled.has(i)) {
      const o = settled.get(i)!;
      outcomes.push(o);
      if (o.status === "done")
        yield {
          type: "tool_result_step",
          final: false,
          tool: items[i].tool,
          callId: items[i].callId,
          result: o.result,
          details: o.details ?? null,
          isError: o.isError,
          agent,
        };
      // After its result was handed on: a continuation does not run it again (docs/agent-stream.md §4.3).
      onResult?.(items[i].callId, o);
      i++;
      continue;
    }
    const woken = Promise.withResolvers<void>();
    wake = woken.resolve;
    if (side.length || settled.has(i)) woken.resolve();
    await woken.promise;
    wake = null;
  }
  while (side.length) yield side.shift()!;
  return outcomes;
}

/** Starts the calls: consecutive parallel ones together, a sequential one alone after every earlier one settled. */
function scheduled(items: BatchItem[], run: (it: BatchItem) => Promise<CallOutcome>): Promise<CallOutcome>[] {
  const promises: Promise<CallOutcome>[] = [];
  let barrier: Promise<unknown> = Promise.resolve();
  let group: Promise<unknown>[] = [];
  for (const it of items) {
    if (it.mode === "sequential") {
      const p = Promise.allSettled([barrier, ...group]).then(() => run(it));
      promises.push(p);
      barrier = p;
      group = [];
    } else {
      const p = barrier.then(() => run(it));
      promises.push(p);
      group.push(p);
    }
  }
  return promises;
}
