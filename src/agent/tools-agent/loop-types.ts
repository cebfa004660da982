import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { ModelMessage } from "ai";
import type { JsonSchema } from "../../tools/json-schema.ts";
import type { InteractionsPort } from "../agent-services.ts";
import type { CallSettings } from "../providers/registry.ts";
import type { CallEnv } from "./call-tool.ts";
import type { CallOutcome, Checkpoint, DoneOutcome, PlannedCall, SubagentState } from "./checkpoint.ts";
import type { GateConfig } from "./interrupts.ts";
import type { ToolSpec } from "./toolbox.ts";
import type { UsageTotals } from "./usage.ts";

/** What a loop runs with; a sub-agent gets its own. */
export interface LoopConfig {
  /** Attribution of the events: null for the run's own agent, else the sub-agent's name. */
  agent: string | null;
  /**
   * "sub": a sub-agent's loop: no RunUsage (its usage counts in the parent's). Its pauses surface through its parent
   * (docs/agent-stream.md §9.2).
   */
  mode: "root" | "sub";
  model: LanguageModelV3;
  settings: CallSettings;
  system: string;
  tools: ToolSpec[];
  gates: Map<string, GateConfig>;
  responseFormat: JsonSchema | null;
  recursionLimit: number;
}

/** What a loop does to the world. */
export interface LoopIO {
  signal: AbortSignal;
  env: CallEnv;
  usage: UsageTotals;
  threadId: string;
  interactions: InteractionsPort | null;
  /** Appends to the thread (a no-op for sub-agents). */
  persist(messages: ModelMessage[]): Promise<void>;
  /** Stores what a resume needs; called just before a pause terminal. */
  checkpoint(value: Checkpoint): void;
  /**
   * The last turn number each agent of the run used (key: its label, "" for the run's
   * own), shared by the run's loops so that two calls of one sub-agent never reuse a
   * number (docs/agent-stream.md §2.2). Absent: each loop numbers from its own count.
   */
  turns?: Map<string, number>;
}

/** The calls of a paused turn a resume settles now, and the outcomes it already knows. */
export interface ResumedBatch {
  calls: PlannedCall[];
  /**
   * Calls to run (or to settle with a fixed outcome, or a paused sub-agent to continue) now, emitting a call and a
   * result each.
   */
  now: { call: PlannedCall; outcome?: CallOutcome; resume?: SubagentResume }[];
  /** Outcomes the paused run already emitted. */
  known: Record<string, DoneOutcome>;
  /** The interrupt the batch's decisions answer: echoed on its ToolCallSteps. */
  interruptId?: string;
  /**
   * The turns the loop had numbered when it paused, when the same run continues (docs/agent-stream.md §7.1): it numbers
   * on from there.
   */
  turns?: number;
}

/** A paused sub-agent call a resume continues: where it stopped, and its own resumed batch. */
export interface SubagentResume {
  state: SubagentState;
  batch: ResumedBatch;
}
