import type { ModelMessage, ToolResultPart } from "ai";
import type { StreamEvent } from "../events.ts";
import type { JsonSchema } from "../../tools/json-schema.ts";

/** What the model reads as a tool result (the AI SDK's tool-result output). */
export type ToolResultOutput = ToolResultPart["output"];

/** One tool call of a model turn, as asked. */
export interface PlannedCall {
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  /** Set when the call could not be made as asked (unknown tool, arguments not JSON). */
  invalid?: { kind: "NOT_FOUND" | "INVALID_INPUT"; message: string };
}

/** A finished call: what the events show, what the model reads, and what ends a loop. */
export interface DoneOutcome {
  status: "done";
  isError: boolean;
  /** The ToolResultStep's `result` (redacted for secret tools). */
  result: unknown;
  /** The tool's `details` (redacted for secret tools); null or absent when it declared none. */
  details?: unknown;
  /** What the model reads as the call's result. */
  modelOutput: ToolResultOutput;
  terminate: boolean;
  /** The result as a value (structured data, else text): a terminating batch's final. */
  value: unknown;
}

/** A question the model put to its caller, as checkpoints stored it before asks were parks. */
export interface Ask {
  id: string;
  callId: string;
  question: string;
  answerFormat: JsonSchema | null;
  to: "caller";
}

/** Where a paused sub-agent stopped: its conversation (stored form) and its own checkpoint. */
export interface SubagentState {
  history: ModelMessage[];
  checkpoint: Checkpoint;
}

/** A sub-agent call that paused: the pause terminal its parent surfaces, and its state. */
export interface SubagentPause {
  terminal: StreamEvent;
  state: SubagentState;
}

/** The outcome of one call: finished, parked on interactions, asking the caller, or a paused sub-agent. */
/** (`ask`: an ask_caller run parked on its question.) */
export type CallOutcome =
  | DoneOutcome
  | { status: "parked"; toolRunId: string }
  | { status: "ask"; toolRunId: string }
  | { status: "paused"; pause: SubagentPause };

/** A parked call of a paused turn: its tool run and the interactions it waits on. */
export interface ParkedCall {
  callId: string;
  toolRunId: string;
  interactionIds: string[];
}

/** A decision on one gated call. */
export type Decision =
  { type: "approve" } | { type: "edit"; args: Record<string, unknown> } | { type: "reject"; message?: string };
export type DecisionType = Decision["type"];

/** One gated call awaiting a decision, as InterruptFinal's payload lists it. */
export interface InterruptAction {
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  allowedDecisions: DecisionType[];
  description: string | null;
}

/**
 * What a paused run stores for its resume (AgentRun.checkpoint). `calls` is the whole
 * paused turn, in the order the model asked; outcomes already known are kept (redacted
 * for secret tools), the rest is resolved by the resume.
 */
export type Checkpoint = CheckpointOf & {
  /**
   * The turns the paused loop had numbered (docs/agent-stream.md §2.2): a continuation of the same run numbers on.
   * Absent in checkpoints stored before issue 25.
   */
  turns?: number;
};

type CheckpointOf =
  | { kind: "interrupt"; interruptId: string; calls: PlannedCall[]; actions: InterruptAction[] }
  | { kind: "suspend"; calls: PlannedCall[]; done: Record<string, DoneOutcome>; parked: ParkedCall[] }
  | { kind: "asks"; calls: PlannedCall[]; done: Record<string, DoneOutcome>; parked: ParkedCall[] }
  /** An ASKED run stored before asks were parked interactions: answered only by an explicit resume. */
  | { kind: "asks"; calls: PlannedCall[]; done: Record<string, DoneOutcome>; asks: Ask[] }
  /** A sub-agent call of the turn (`callId`) paused; a resume continues it from `state`. */
  | { kind: "subagent"; calls: PlannedCall[]; done: Record<string, DoneOutcome>; callId: string; state: SubagentState }
  /**
   * Several sub-agent calls of the turn paused the same way and share one terminal
   * (`pause`, docs/agent-stream.md §9.2); a resume continues each from its `state`.
   * `interruptId`: the shared InterruptFinal's, when they wait on approvals.
   */
  | {
      kind: "subagents";
      pause: SharedPauseType;
      calls: PlannedCall[];
      done: Record<string, DoneOutcome>;
      paused: { callId: string; state: SubagentState }[];
      interruptId?: string;
    };

/** The terminals sibling sub-agents can share. */
export type SharedPauseType = "interrupt_final" | "suspended_final" | "asks_final";
