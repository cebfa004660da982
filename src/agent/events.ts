import type { ErrorKind } from "../errors.ts";
import type { ToolProgressStep } from "./tool-progress-event.ts";

export type { ToolProgressStep } from "./tool-progress-event.ts";

/**
 * The neutral event vocabulary an agent streams (docs/agent-stream.md §2). An agent
 * yields these without `seq` and `runId`; the run assigns both when it stores and
 * publishes the event.
 */
interface Base {
  /** The sub-agent that produced the event; null or absent for the run's own agent. */
  agent?: string | null;
}

/**
 * A token-level chunk of the run's own model text as the model writes it
 * (docs/agent-stream.md §2.2): joined, the deltas whose `turn` is the terminal's `turn`
 * are its MessageFinal text.
 */
export interface MessageDelta extends Base {
  type: "message_delta";
  final: false;
  text: string;
  /**
   * The model turn of the event's agent that wrote it (1, 2, …; never reused in a run). The runner numbers an
   * unnumbered delta 1.
   */
  turn?: number;
}

/**
 * A chunk of a sub-agent's text, numbered by the sub-agent's own turns; never the run's answer (docs/agent-stream.md
 * §2.2).
 */
export interface IntermediateDelta extends Base {
  type: "intermediate_delta";
  final: false;
  text: string;
  turn?: number;
}

/** The plain-text answer. Terminal. */
export interface MessageFinal extends Base {
  type: "message_final";
  final: true;
  text: string;
  /** The turn whose MessageDeltas joined are `text`; null when no delta carried it (a non-streaming agent). */
  turn?: number | null;
}

/** One block of the model's reasoning. Never empty or whitespace-only. */
export interface ReasoningStep extends Base {
  type: "reasoning_step";
  final: false;
  text: string;
}

/** Token usage and model label of the run; any field may be null. */
export interface RunUsage extends Base {
  type: "run_usage";
  final: false;
  inputTokens: number | null;
  outputTokens: number | null;
  totalTokens: number | null;
  model: string | null;
}

/** A structured answer (typically the validated `responseFormat` object). Terminal. */
export interface StructuredFinal extends Base {
  type: "structured_final";
  final: true;
  data: unknown;
  /** The turn whose MessageDeltas joined are the JSON text it was parsed from; null when it came from a tool result. */
  turn?: number | null;
}

/** One tool call the model made; `callId` is matched by its ToolResultStep. */
export interface ToolCallStep extends Base {
  type: "tool_call_step";
  final: false;
  tool: string;
  args: Record<string, unknown>;
  callId: string;
  /** On a resumed run, the InterruptFinal the call was decided under; absent otherwise. */
  resumedInterruptId?: string | null;
}

/** The outcome of one tool call: its result value passed through untouched, and its details. */
export interface ToolResultStep extends Base {
  type: "tool_result_step";
  final: false;
  tool: string;
  callId: string;
  result: unknown;
  /** The tool's `details`: facts for a UI the model never reads; null when it declared none. */
  details?: unknown;
  isError: boolean;
}

/** The run waits for an approval decision. Terminal. */
export interface InterruptFinal extends Base {
  type: "interrupt_final";
  final: true;
  interruptId: string;
  payload: unknown;
  reason: string | null;
  /** The thread to resume on; the runner fills it (an agent need not). */
  threadId?: string;
}

/** A tool parked on interactions; the run resumes once they are answered. Terminal. */
export interface SuspendedFinal extends Base {
  type: "suspended_final";
  final: true;
  interactionIds: string[];
  threadId: string;
  /** The subset of `interactionIds` addressed to the caller (`to: "caller"`). */
  callerInteractionIds: string[];
  /** The earliest interaction deadline (ISO-8601), or null. */
  expiryAt: string | null;
}

/** The agent asked its caller; each ask is answered on resume. Terminal. */
export interface AsksFinal extends Base {
  type: "asks_final";
  final: true;
  asks: Record<string, unknown>[];
}

/** Every member an agent may yield. */
export type StreamEvent =
  | MessageDelta
  | IntermediateDelta
  | MessageFinal
  | ReasoningStep
  | RunUsage
  | StructuredFinal
  | ToolCallStep
  | ToolResultStep
  | ToolProgressStep
  | InterruptFinal
  | SuspendedFinal
  | AsksFinal;

export type StreamEventType = StreamEvent["type"];
export type TerminalEvent = Extract<StreamEvent, { final: true }>;

/** A stored, published event: the member plus its place in its run. */
export type AgentEventRecord = StreamEvent & { seq: number; runId: string };

/**
 * How a failed run ends its log (docs/agent-stream.md §4). Not a StreamEvent: a failed
 * run has no terminal event, and doors turn this record into an error.
 */
export interface RunFailedRecord {
  type: "run_failed";
  final: true;
  seq: number;
  runId: string;
  kind: ErrorKind;
  message: string;
}

/** One entry of a run's log: an event, or the failure that ended it. */
export type AgentLogEntry = AgentEventRecord | RunFailedRecord;

/**
 * The terminal a plain result value represents: a string is a `MessageFinal`, any other
 * value a `StructuredFinal`. The one rule both the default `astream` and a terminating
 * tool batch map a value through.
 */
export function finalEventForValue(value: unknown): MessageFinal | StructuredFinal {
  if (typeof value === "string") return { type: "message_final", final: true, text: value };
  return { type: "structured_final", final: true, data: value ?? null };
}
