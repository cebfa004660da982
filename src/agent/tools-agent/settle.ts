import type { StreamEvent } from "../events.ts";
import { joinPauses, sharingPause } from "../subagents/shared-pause.ts";
import type { DoneOutcome, PlannedCall } from "./checkpoint.ts";
import { checkpoint, type LoopRun } from "./loop-run.ts";
import type { ResumedBatch } from "./loop-types.ts";
import { asksFinal, suspendedFinal } from "./pause-finals.ts";
import { refuseAsks, refusePauses } from "./settle-conflicts.ts";
import { toolResults } from "./tool-results.ts";
import { runCalls } from "./turn-calls.ts";
import { doneOf, pauseOf } from "./turn-outcomes.ts";

const ASK_BESIDE_SUBAGENT =
  "ask_caller cannot be answered while a sub-agent of the same turn waits; ask again once it is settled";
const ASK_BESIDE_PARK =
  "ask_caller cannot be answered while another tool of the same turn waits on an interaction; ask again once it is answered";

/**
 * Runs a turn's calls, then settles their outcomes; returns a terminal when the turn ends the run (a pause or a
 * terminate), null when the model goes on with the results.
 */
export async function* settleBatch(
  run: LoopRun,
  calls: PlannedCall[],
  now: ResumedBatch["now"],
  known: Record<string, DoneOutcome>,
  interruptId?: string,
): AsyncGenerator<StreamEvent, StreamEvent | null> {
  const byId = yield* runCalls(run, now, known, interruptId);
  const parked = calls.filter((c) => byId.get(c.callId)?.status === "parked");
  const paused = calls.filter((c) => byId.get(c.callId)?.status === "paused");
  const asking = calls.filter((c) => byId.get(c.callId)?.status === "ask");
  // One terminal per run: a park wins, then the first paused sub-agent with every other that
  // paused the same way (docs/agent-stream.md §9.2); any other pause of the turn becomes an error result (its parked
  // tool runs are cancelled).
  const surfaced = parked.length ? [] : sharingPause(paused.map((c) => ({ ...c, pause: pauseOf(byId, c) })));
  yield* refusePauses(
    run,
    paused.filter((p) => !surfaced.some((s) => s.callId === p.callId)),
    byId,
  );
  if (surfaced.length) {
    yield* refuseAsks(run, asking, byId, ASK_BESIDE_SUBAGENT);
    const joined = joinPauses(surfaced, calls, doneOf(run, calls, byId), run.cfg.agent);
    checkpoint(run, joined.checkpoint);
    return joined.terminal;
  }
  if (parked.length) {
    yield* refuseAsks(run, asking, byId, ASK_BESIDE_PARK);
    return suspendedFinal(run, calls, parked, byId);
  }
  if (asking.length) return asksFinal(run, calls, asking, byId);
  return yield* toolResults(run, calls, byId);
}
