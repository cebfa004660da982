import type { StreamEvent } from "../events.ts";
import { runBatch, type BatchItem } from "./batch.ts";
import { callTool, errorOutcome } from "./call-tool.ts";
import type { CallOutcome, DoneOutcome, PlannedCall } from "./checkpoint.ts";
import { saveProgress, shownArgs, type LoopRun } from "./loop-run.ts";
import type { ResumedBatch, SubagentResume } from "./loop-types.ts";

/**
 * Executes a turn's tool calls through the chokepoint (docs/agent-stream.md §5.2), or settles them with their fixed
 * outcomes; returns every outcome of the turn by call id, the ones a paused run already knew included.
 */
export async function* runCalls(
  run: LoopRun,
  now: ResumedBatch["now"],
  known: Record<string, DoneOutcome>,
  interruptId?: string,
): AsyncGenerator<StreamEvent, Map<string, CallOutcome>> {
  const items: BatchItem[] = now.map(({ call, outcome, resume }) => ({
    ...itemFor(run, call, outcome, resume),
    ...(interruptId ? { interruptId } : {}),
  }));
  const outcomes = yield* runBatch(items, run.cfg.agent, (callId, o) => {
    if (o.status !== "done" || !run.batch?.calls.some((c) => c.callId === callId)) return;
    run.batch.done[callId] = o;
    saveProgress(run);
  });
  // A cancelled run stops here: its aborted calls are not results for the model (docs/agent-stream.md §4.1).
  run.io.signal.throwIfAborted();
  const byId = new Map<string, CallOutcome>(Object.entries(known));
  items.forEach((it, i) => byId.set(it.callId, outcomes[i]));
  return byId;
}

function itemFor(
  run: LoopRun,
  call: PlannedCall,
  fixed: CallOutcome | undefined,
  resume: SubagentResume | undefined,
): BatchItem {
  const spec = run.specs.get(call.tool);
  const base = {
    callId: call.callId,
    tool: call.tool,
    shownArgs: shownArgs(run, call.tool, call.args),
    mode: spec?.executionMode ?? "parallel",
  };
  if (fixed) return { ...base, run: async () => fixed };
  if (call.invalid || !spec)
    return {
      ...base,
      run: async () =>
        errorOutcome(
          call.invalid?.kind ?? "NOT_FOUND",
          call.invalid?.message ?? `no tool named "${call.tool}" in this run`,
        ),
    };
  return {
    ...base,
    run: (emit) => callTool(spec, call, run.io.env, emit, run.cfg.agent, resume),
  };
}
