import { ToolError } from "../../errors.ts";
import { nextTurn, type LoopRun } from "./loop-run.ts";
import type { TurnRequest } from "./model-turn.ts";

/**
 * The prepare step of a turn: the budget checked (no more model calls than the recursion limit), then the model call
 * asked with the conversation so far, the run's tools and the turn's number.
 */
export function prepareTurn(run: LoopRun, turn: number): TurnRequest {
  const { cfg, io } = run;
  if (turn >= cfg.recursionLimit)
    throw new ToolError(
      `the agent reached its recursion limit of ${cfg.recursionLimit} model calls without a final answer`,
      { kind: "TIMEOUT" },
    );
  return {
    model: cfg.model,
    settings: cfg.settings,
    system: cfg.system,
    messages: run.messages,
    tools: cfg.tools,
    responseFormat: cfg.responseFormat,
    signal: io.signal,
    agent: cfg.agent,
    member: run.member,
    turn: nextTurn(run),
    usage: io.usage,
  };
}
