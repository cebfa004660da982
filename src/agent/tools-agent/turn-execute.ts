import type { StreamEvent } from "../events.ts";
import { append, type LoopRun } from "./loop-run.ts";
import { modelTurn, type TurnRequest, type TurnResult } from "./model-turn.ts";

/** The execute step of a turn: the model call, streamed; what the model said joins the conversation. */
export async function* executeTurn(run: LoopRun, req: TurnRequest): AsyncGenerator<StreamEvent, TurnResult> {
  const t = yield* modelTurn(req);
  if (t.assistant) await append(run, t.assistant);
  return t;
}
