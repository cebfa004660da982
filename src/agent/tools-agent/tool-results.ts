import type { ModelMessage } from "ai";
import { finalEventForValue, type StreamEvent } from "../events.ts";
import type { DoneOutcome, PlannedCall } from "./checkpoint.ts";
import { append, nextTurn, type LoopRun } from "./loop-run.ts";
import type { Outcomes } from "./turn-outcomes.ts";

/**
 * A turn whose calls are all done: their results join the conversation as one tool message. When every call of the
 * turn terminates (docs/agent-stream.md §5.3) the last one's value is the run's answer; else null: the model goes
 * on.
 */
export async function* toolResults(
  run: LoopRun,
  calls: PlannedCall[],
  byId: Outcomes,
): AsyncGenerator<StreamEvent, StreamEvent | null> {
  const results = calls.map((c) => byId.get(c.callId) as DoneOutcome);
  const toolMessage = {
    role: "tool",
    content: calls.map((c, i) => ({
      type: "tool-result",
      toolCallId: c.callId,
      toolName: c.tool,
      output: results[i].modelOutput,
    })),
  } as ModelMessage;
  await append(run, toolMessage);
  if (!results.length || !results.every((r) => r.terminate)) return null;
  const agent = run.cfg.agent;
  const end = finalEventForValue(results[results.length - 1].value);
  if (end.type === "structured_final") return { ...end, turn: null, agent };
  // The answer is the tool's, not the model's: it streams as one delta of a turn of its own, so the deltas still join
  // to it.
  const turn = nextTurn(run);
  if (end.text) yield { type: run.member, final: false, text: end.text, turn, agent };
  return { ...end, turn, agent };
}
