import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { ModelMessage } from "ai";
import type { RunEventRecord } from "../../dispatch/run-record.ts";
import type { RunOutcome } from "../../dispatch/request.ts";
import type { SurfaceEntry } from "../../registry/surface-entry.ts";
import type { ExecutionMode } from "../../tools/definition.ts";
import type { JsonSchema } from "../../tools/json-schema.ts";
import type { ToolTarget } from "../agent-tools.ts";
import type { StreamEvent } from "../events.ts";
import type { InteractionsPort } from "../interactions-port.ts";
import type { CallSettings } from "../providers/call-settings.ts";
import type { ResolvedModel } from "../providers/registry.ts";
import type { SubAgentSpec } from "../specs.ts";
import type { CallOutcome, Checkpoint, DoneOutcome, PlannedCall, SubagentState } from "./checkpoint.ts";
import type { GateConfig } from "./interrupts.ts";
import type { RunSecrets } from "./run-secrets.ts";
import type { UsageSnapshot, UsageTotals } from "./usage.ts";
import type { BatchProgress } from "./progress-types.ts";

// The types of one tools-agent loop, in one module because they nest: a loop's tools hold
// its sub-agents' plans, each with the strategy that runs its own loop (docs/agent-stream.md §5, §9).

/**
 * A tools-agent loop strategy (the seed's `strategy`, docs/plugins.md §4): how a run goes
 * from its history to its terminal. It receives what the built-in loop receives: the
 * run's model, system prompt, tools and gates (`cfg`), the run's world (`io`), the history
 * and, on a resume, the paused batch.
 *
 * Contract: yield the run's events and end with exactly one terminal; run every tool
 * through `io.env.runTool` (the dispatch chokepoint, as the run's caller); call
 * `io.checkpoint` before a pause terminal; stop promptly when `io.signal` aborts.
 */
export type LoopStrategy = (
  cfg: LoopConfig,
  io: LoopIO,
  history: ModelMessage[],
  resumed: ResumedBatch | null,
) => AsyncIterable<StreamEvent>;

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
  /** Stores the root loop's progress while it runs (docs/agent-stream.md §4.3). */
  progress?(value: { messages: ModelMessage[]; batch: BatchProgress | null; turns: number }): void;
  /** Set by the root loop: told each tool run a call of the run started (its model call id, its run id). */
  onToolRun?: (callId: string, toolRunId: string) => void;
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
  /** A continuation from stored progress (docs/agent-stream.md §4.3): the conversation it goes on from. */
  history?: ModelMessage[];
  /** A continuation from stored progress: the tokens used before. */
  usage?: UsageSnapshot;
}

/** A paused sub-agent call a resume continues: where it stopped, and its own resumed batch. */
export interface SubagentResume {
  state: SubagentState;
  batch: ResumedBatch;
}

/** What a call needs from its run. */
export interface CallEnv {
  /**
   * Contract: goes through the dispatch chokepoint as the run's caller, with the run's
   * signal (`AgentContext.runTool`); never throws for a tool failure. `target` is a name or
   * a live tool's entry; within a scope given live tools, a name reaches them
   * (`withLiveTools`). `onProgress` is told each RUN_PROGRESS of the run it starts; `callId`
   * is the model's call it carries out (`RunRequest.toolCallId`).
   */
  runTool(
    target: ToolTarget,
    input: unknown,
    onProgress?: (event: RunEventRecord) => void,
    callId?: string,
  ): Promise<RunOutcome>;
  /**
   * Contract: runs the sub-agent to its end or its pause (continuing it from `resume` when
   * set); its failures come back as an error outcome, never as a throw.
   */
  runSubagent(
    spec: Extract<ToolSpec, { kind: "subagent" }>,
    task: string,
    emit: (e: StreamEvent) => void,
    resume?: SubagentResume,
  ): Promise<CallOutcome>;
  /** Ends a parked tool run that nobody will resume (its interactions are cancelled). */
  cancelTool(toolRunId: string): Promise<void>;
  secrets: RunSecrets;
}

interface SpecBase {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  executionMode: ExecutionMode;
  /** A secret-tier tool: its arguments and results are never stored or published. */
  redacted: boolean;
  /** From the tool's declaration, for the system message (`prompt.ts`). */
  promptSnippet?: string;
  promptGuidelines?: readonly string[];
}

/**
 * One tool the model may call in a run, resolved and checked before the run starts. A
 * live tool is a "surface" spec whose entry its scope holds (live-tools.ts).
 */
export type ToolSpec =
  | (SpecBase & { kind: "surface" })
  | (SpecBase & { kind: "preset"; baseTool: string; fixedKwargs: Record<string, unknown> })
  | (SpecBase & SubagentPlan)
  | (SpecBase & { kind: "ask" });

/** A sub-agent checked and resolved before the run starts: everything its loop runs with. */
export interface SubagentPlan {
  kind: "subagent";
  spec: SubAgentSpec;
  /** Its events' `agent`: its name, under its parents' names (`outer/inner`). */
  label: string;
  system: string;
  tools: ToolSpec[];
  /** Its live tools' entries, by name: run through the chokepoint for it only (docs/agent-stream.md §9.3). */
  live: Map<string, SurfaceEntry>;
  responseFormat: JsonSchema | null;
  gates: Map<string, GateConfig>;
  /** The loop strategy it runs with (subagents/strategy.ts). */
  strategy: LoopStrategy;
  llm: ResolvedModel;
  recursionLimit: number;
}
