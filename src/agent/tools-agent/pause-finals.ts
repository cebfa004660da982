import type { StreamEvent } from "../events.ts";
import type { PlannedCall } from "./checkpoint.ts";
import { checkpoint, type LoopRun } from "./loop-run.ts";
import { askEntry, parkedCall, waitsOf } from "./parked-calls.ts";
import { doneOf, toolRunOf, type Outcomes } from "./turn-outcomes.ts";

/** The interactions the calls wait on, each call with its tool run. */
function waiting(run: LoopRun, calls: PlannedCall[], byId: Outcomes) {
  return waitsOf(
    run.io.interactions,
    calls.map((c) => ({ callId: c.callId, toolRunId: toolRunOf(byId, c) })),
  );
}

/** A turn with parked calls suspends the run on their pending interactions (docs/agent-stream.md §7). */
export async function suspendedFinal(
  run: LoopRun,
  calls: PlannedCall[],
  parked: PlannedCall[],
  byId: Outcomes,
): Promise<StreamEvent> {
  const waits = await waiting(run, parked, byId);
  const all = waits.flatMap((w) => w.interactions.filter((i) => i.status === "PENDING"));
  const expiries = all
    .map((i) => i.expiresAt)
    .filter((x): x is string => Boolean(x))
    .sort();
  checkpoint(run, {
    kind: "suspend",
    calls,
    done: doneOf(run, calls, byId),
    parked: waits.map((w) => parkedCall(w, true)),
  });
  return {
    type: "suspended_final",
    final: true,
    interactionIds: all.map((i) => i.id),
    callerInteractionIds: all.filter((i) => i.to === "caller").map((i) => i.id),
    threadId: run.io.threadId,
    expiryAt: expiries[0] ?? null,
    agent: run.cfg.agent,
  };
}

/** A turn whose only waits are ask_caller calls ends the run ASKED, with their questions (docs/agent-stream.md §8). */
export async function asksFinal(
  run: LoopRun,
  calls: PlannedCall[],
  asking: PlannedCall[],
  byId: Outcomes,
): Promise<StreamEvent> {
  const waits = await waiting(run, asking, byId);
  checkpoint(run, {
    kind: "asks",
    calls,
    done: doneOf(run, calls, byId),
    parked: waits.map((w) => parkedCall(w, false)),
  });
  return {
    type: "asks_final",
    final: true,
    asks: waits.flatMap((w) => w.interactions.map((i) => askEntry(w.callId, i))),
    agent: run.cfg.agent,
  };
}
