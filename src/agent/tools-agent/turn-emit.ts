import type { StreamEvent } from "../events.ts";
import type { LoopRun } from "./loop-run.ts";

/** The run's RunUsage: the run's own agent's only; a sub-agent's counts in its parent's (docs/agent-stream.md §9.2). */
function* usage(run: LoopRun): Generator<StreamEvent> {
  if (run.cfg.mode === "root") yield run.io.usage.event();
}

/** The emit step: a run ends with its RunUsage, right before its terminal (docs/agent-stream.md §5). */
export function* emitEnd(run: LoopRun, end: StreamEvent): Generator<StreamEvent> {
  run.usageShown = true;
  yield* usage(run);
  yield end;
}

/** A failing run still reports what its model calls used, unless its RunUsage went out already. */
export function* emitFailure(run: LoopRun): Generator<StreamEvent> {
  if (!run.usageShown && run.io.usage.calls > 0) yield* usage(run);
}
