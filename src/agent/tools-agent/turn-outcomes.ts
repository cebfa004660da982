import { storable } from "./call-tool.ts";
import type { CallOutcome, DoneOutcome, PlannedCall, SubagentPause } from "./checkpoint.ts";
import type { LoopRun } from "./loop-run.ts";

/** A turn's outcomes by call id: what its calls ended with, or stopped at. */
export type Outcomes = Map<string, CallOutcome>;

/** The pause a paused sub-agent call stopped with. */
export function pauseOf(byId: Outcomes, call: PlannedCall): SubagentPause {
  return (byId.get(call.callId) as { pause: SubagentPause }).pause;
}

/** The tool run a parked or asking call waits in. */
export function toolRunOf(byId: Outcomes, call: PlannedCall): string {
  return (byId.get(call.callId) as { toolRunId: string }).toolRunId;
}

/** The outcomes of the calls that are done, as a checkpoint stores them (a secret tool's redacted). */
export function doneOf(run: LoopRun, calls: PlannedCall[], byId: Outcomes): Record<string, DoneOutcome> {
  return Object.fromEntries(
    calls.flatMap((c) =>
      byId.get(c.callId)?.status === "done"
        ? [[c.callId, storable(byId.get(c.callId) as DoneOutcome, run.specs.get(c.tool)?.redacted ?? false)]]
        : [],
    ),
  );
}
