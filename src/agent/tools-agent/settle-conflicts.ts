import type { StreamEvent } from "../events.ts";
import { cancelPause } from "../subagents/pause.ts";
import { errorOutcome } from "./call-tool.ts";
import type { CallOutcome, PlannedCall } from "./checkpoint.ts";
import type { LoopRun } from "./loop-run.ts";
import { pauseOf, toolRunOf } from "./turn-outcomes.ts";

/** The sub-agents of a turn that paused beside its one terminal: each is cancelled and ends with a CONFLICT result. */
export async function* refusePauses(
  run: LoopRun,
  calls: PlannedCall[],
  byId: Map<string, CallOutcome>,
): AsyncGenerator<StreamEvent> {
  for (const c of calls) {
    await cancelPause(pauseOf(byId, c), run.io.env);
    yield refusal(
      run,
      c,
      byId,
      `sub-agent "${c.tool}" paused while another call of the same turn waits; call it again once that is settled`,
    );
  }
}

/** The ask_caller calls of a turn that waits on something else: each tool run is cancelled and ends with `message`. */
export async function* refuseAsks(
  run: LoopRun,
  calls: PlannedCall[],
  byId: Map<string, CallOutcome>,
  message: string,
): AsyncGenerator<StreamEvent> {
  for (const c of calls) {
    await run.io.env.cancelTool(toolRunOf(byId, c));
    yield refusal(run, c, byId, message);
  }
}

/** A call's outcome replaced by a CONFLICT error, and its ToolResultStep. */
function refusal(run: LoopRun, c: PlannedCall, byId: Map<string, CallOutcome>, message: string): StreamEvent {
  const o = errorOutcome("CONFLICT", message);
  byId.set(c.callId, o);
  return {
    type: "tool_result_step",
    final: false,
    tool: c.tool,
    callId: c.callId,
    result: o.result,
    isError: true,
    agent: run.cfg.agent,
  };
}
