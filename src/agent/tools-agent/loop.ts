import type { ModelMessage } from "ai";
import type { StreamEvent } from "../events.ts";
import type { LoopConfig, LoopIO, ResumedBatch } from "./loop-types.ts";
import { followToolRuns, saveProgress, startRun } from "./loop-run.ts";
import { settleBatch } from "./settle.ts";
import { emitEnd, emitFailure } from "./turn-emit.ts";
import { executeTurn } from "./turn-execute.ts";
import { finalizeTurn } from "./turn-finalize.ts";
import { prepareTurn } from "./turn-prepare.ts";

export type { LoopConfig, LoopIO, ResumedBatch, SubagentResume } from "./loop-types.ts";

/**
 * The tools-agent loop (docs/agent-stream.md §5): model turn → tool calls through the
 * chokepoint → results back to the model, until an answer, a terminate, a pause or the
 * recursion limit. Yields every event of the run, RunUsage right before the terminal.
 *
 * A resumed run settles its paused turn first; then each turn runs in named steps: prepare (the budget, the model
 * call's messages and tools) → execute (the model turn) → finalize (the answer, an interrupt, or the tool calls run and
 * settled) → emit (RunUsage and the terminal, once a step ends the run).
 */
export async function* runLoop(
  cfg: LoopConfig,
  io: LoopIO,
  history: ModelMessage[],
  resumed: ResumedBatch | null,
): AsyncGenerator<StreamEvent> {
  const run = startRun(cfg, io, history, resumed);
  followToolRuns(run);
  try {
    if (!resumed) saveProgress(run);
    if (resumed?.calls.length) {
      const end = yield* settleBatch(run, resumed.calls, resumed.now, resumed.known, resumed.interruptId);
      if (end) return yield* emitEnd(run, end);
      run.batch = null;
      saveProgress(run);
    }
    for (let turn = 0; ; turn++) {
      const t = yield* executeTurn(run, prepareTurn(run, turn));
      // A completed model turn is not called again by a continuation (docs/agent-stream.md §4.3).
      run.batch = t.calls.length ? { calls: t.calls, done: {}, toolRuns: {} } : null;
      saveProgress(run);
      const end = yield* finalizeTurn(run, t);
      if (end) return yield* emitEnd(run, end);
      run.batch = null;
      saveProgress(run);
    }
  } catch (e) {
    yield* emitFailure(run);
    throw e;
  }
}
