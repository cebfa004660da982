import type { ModelMessage } from "ai";
import { REDACTED } from "../../auth/tiers.ts";
import type { Checkpoint } from "./checkpoint.ts";
import type { BatchProgress } from "./progress-types.ts";
import type { LoopConfig, LoopIO, ResumedBatch } from "./loop-types.ts";
import type { ToolSpec } from "./loop-types.ts";

/** One loop's running state, shared by its steps (prepare → execute → finalize → emit). */
export interface LoopRun {
  cfg: LoopConfig;
  io: LoopIO;
  /** The conversation so far: the history, then what each turn added. */
  messages: ModelMessage[];
  specs: Map<string, ToolSpec>;
  /** The run's own agent's text is MessageDelta; a sub-agent's is IntermediateDelta (docs/agent-stream.md §2.2). */
  member: "message_delta" | "intermediate_delta";
  /** The last turn number used; a continuation of the same run numbers on (docs/agent-stream.md §2.2 rule 1). */
  turnNo: number;
  /** Whether the run's RunUsage was yielded. */
  usageShown: boolean;
  /** Whether an answer that missed responseFormat was already sent back once. */
  retried: boolean;
  /** The turn's calls while they run (the root loop's progress, docs/agent-stream.md §4.3). */
  batch: BatchProgress | null;
}

/** The state a loop starts with. */
export function startRun(cfg: LoopConfig, io: LoopIO, history: ModelMessage[], resumed: ResumedBatch | null): LoopRun {
  return {
    cfg,
    io,
    messages: [...history],
    specs: new Map(cfg.tools.map((t) => [t.name, t])),
    member: cfg.mode === "root" ? "message_delta" : "intermediate_delta",
    turnNo: Math.max(resumed?.turns ?? 0, io.turns?.get(cfg.agent ?? "") ?? 0),
    usageShown: false,
    retried: false,
    batch: resumed?.calls.length ? { calls: resumed.calls, done: { ...resumed.known }, toolRuns: {} } : null,
  };
}

/**
 * Stores the root loop's progress (docs/agent-stream.md §4.3): after each completed model turn, each tool result and
 * each tool run a call started. A sub-agent's loop stores none: its call is the parent's.
 */
export function saveProgress(run: LoopRun): void {
  if (run.cfg.mode !== "root" || !run.io.progress) return;
  run.io.progress({ messages: run.messages, batch: run.batch, turns: run.turnNo });
}

/** The root loop follows the tool runs its calls start, for its progress. */
export function followToolRuns(run: LoopRun): void {
  if (run.cfg.mode !== "root") return;
  run.io.onToolRun = (callId, toolRunId) => {
    if (!run.batch?.calls.some((c) => c.callId === callId)) return;
    run.batch.toolRuns[callId] = toolRunId;
    saveProgress(run);
  };
}

/** Numbers a new turn, past every number this agent of the run used (docs/agent-stream.md §2.2). */
export function nextTurn(run: LoopRun): number {
  const key = run.cfg.agent ?? "";
  run.turnNo = Math.max(run.turnNo, run.io.turns?.get(key) ?? 0) + 1;
  run.io.turns?.set(key, run.turnNo);
  return run.turnNo;
}

/** Stores what a resume needs, with the turns numbered so far. */
export function checkpoint(run: LoopRun, value: Checkpoint): void {
  run.io.checkpoint({ ...value, turns: run.turnNo });
}

/** Adds a message to the conversation and to the thread. */
export async function append(run: LoopRun, message: ModelMessage): Promise<void> {
  run.messages.push(message);
  await run.io.persist([message]);
}

/** A call's arguments as events show them: a secret tool's are redacted. */
export function shownArgs(run: LoopRun, tool: string, args: Record<string, unknown>): Record<string, unknown> {
  return run.specs.get(tool)?.redacted ? { redacted: REDACTED } : args;
}
