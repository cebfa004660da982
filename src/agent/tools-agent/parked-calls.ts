import type { InteractionRecord } from "../../interactions/park.ts";
import type { ParkedCall } from "./checkpoint.ts";
import type { InteractionsPort } from "../interactions-port.ts";

/** A parked call of a turn with the interactions its tool run opened. */
export interface Wait {
  callId: string;
  toolRunId: string;
  interactions: InteractionRecord[];
}

/** Reads the interactions each parked call's tool run waits on. */
export function waitsOf(
  port: InteractionsPort | null,
  calls: { callId: string; toolRunId: string }[],
): Promise<Wait[]> {
  return Promise.all(calls.map(async (c) => ({ ...c, interactions: (await port?.forRun(c.toolRunId)) ?? [] })));
}

/** A wait as a checkpoint stores it; `pendingOnly` keeps only the interactions still open. */
export function parkedCall(w: Wait, pendingOnly: boolean): ParkedCall {
  return {
    callId: w.callId,
    toolRunId: w.toolRunId,
    interactionIds: w.interactions.filter((i) => !pendingOnly || i.status === "PENDING").map((i) => i.id),
  };
}

/**
 * One entry of `AsksFinal.asks` (docs/agent-stream.md §8): the full parked entry of an
 * ask_caller question — its interaction's id, the call that asked it, the question, its
 * answer format, who answers it, its deadline and its status.
 */
export function askEntry(callId: string, i: InteractionRecord): Record<string, unknown> {
  return {
    id: i.id,
    callId,
    question: i.question,
    answerFormat: i.answerFormat,
    to: i.to,
    expiryAt: i.expiresAt,
    status: i.status,
  };
}
