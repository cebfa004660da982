import type { ModelMessage } from "ai";
import { DEFAULT_STRATEGY } from "../../plugins/plugin-catalog.ts";
import type { StreamEvent } from "../events.ts";
import { runLoop, type LoopConfig, type LoopIO, type ResumedBatch } from "../tools-agent/loop.ts";

/**
 * A tools-agent loop strategy (the seed's `strategy`, docs/plugins.md §4): how a run goes
 * from its history to its terminal. It receives what the built-in loop receives: the
 * run's model, system prompt, tools and gates (`cfg`), the run's world (`io`), the history
 * and, on a resume, the paused batch.
 *
 * Contract: yield the run's events and end with exactly one terminal; run every tool
 * through `io.env.runTool` (the dispatch chokepoint, as the run's caller); call
 * `io.checkpoint` before a pause terminal; stop promptly when `io.signal` aborts.
 */
export type LoopStrategy = (
  cfg: LoopConfig,
  io: LoopIO,
  history: ModelMessage[],
  resumed: ResumedBatch | null,
) => AsyncIterable<StreamEvent>;

export { DEFAULT_STRATEGY };

/** The strategies every runtime knows. */
export const BUILTIN_STRATEGIES: ReadonlyMap<string, LoopStrategy> = new Map([[DEFAULT_STRATEGY, runLoop]]);
