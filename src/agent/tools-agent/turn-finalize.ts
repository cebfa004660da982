import { randomUUID } from "node:crypto";
import type { ModelMessage } from "ai";
import { describeIssues, ToolError } from "../../errors.ts";
import type { StreamEvent } from "../events.ts";
import type { PlannedCall } from "./checkpoint.ts";
import { actionsFor } from "./interrupts.ts";
import { append, checkpoint, shownArgs, type LoopRun } from "./loop-run.ts";
import type { TurnResult } from "./model-turn.ts";
import { settleBatch } from "./settle.ts";
import { parseStructured } from "./structured-output.ts";

/**
 * The finalize step of a turn: a turn without calls answers (structured output checked, docs/agent-stream.md §5.4); a
 * gated call interrupts the run before any call runs (docs/agent-stream.md §6); else the calls run and settle. Returns
 * the run's terminal, or null for another turn.
 */
export async function* finalizeTurn(run: LoopRun, t: TurnResult): AsyncGenerator<StreamEvent, StreamEvent | null> {
  if (!t.calls.length) return await answer(run, t.text);
  const interrupt = interruptFor(run, t.calls);
  if (interrupt) return interrupt;
  return yield* settleBatch(
    run,
    t.calls,
    t.calls.map((call) => ({ call })),
    {},
  );
}

/** The model's answer; one missing responseFormat is sent back once to be fixed (null: the retry's turn decides). */
async function answer(run: LoopRun, text: string): Promise<StreamEvent | null> {
  const { cfg } = run;
  if (!cfg.responseFormat) return { type: "message_final", final: true, text, turn: run.turnNo, agent: cfg.agent };
  // Its text streamed as it came; an invalid answer is settled by the retry's turn.
  const parsed = parseStructured(text, cfg.responseFormat);
  if (!parsed.ok && !run.retried) {
    run.retried = true;
    const fix: ModelMessage = {
      role: "user",
      content: `Your answer does not match the required JSON Schema: ${describeIssues(parsed.issues)}. Reply again with only the JSON value.`,
    };
    await append(run, fix);
    return null;
  }
  if (!parsed.ok)
    throw new ToolError(
      `the model's answer did not match responseFormat after one retry: ${describeIssues(parsed.issues)}`,
      { kind: "UPSTREAM" },
    );
  return { type: "structured_final", final: true, data: parsed.value, turn: run.turnNo, agent: cfg.agent };
}

/** The InterruptFinal of a turn with gated calls, its checkpoint stored; null when no call is gated. */
function interruptFor(run: LoopRun, calls: PlannedCall[]): StreamEvent | null {
  const actions = actionsFor(calls, run.cfg.gates);
  if (!actions.length) return null;
  const interruptId = randomUUID();
  checkpoint(run, { kind: "interrupt", interruptId, calls, actions });
  return {
    type: "interrupt_final",
    final: true,
    interruptId,
    payload: { actions: actions.map((a) => ({ ...a, args: shownArgs(run, a.tool, a.args) })) },
    reason: `approval required: ${[...new Set(actions.map((a) => a.tool))].join(", ")}`,
    agent: run.cfg.agent,
  };
}
