import type { z } from "zod";
import type { Caller, Tier } from "../auth/roles.ts";
import { ApiError } from "../errors.ts";
import type { RunOutcome } from "../dispatch/request.ts";
import type { Logger } from "../log.ts";
import type { SecretScope } from "../secrets/secrets.ts";
import type { JsonSchema } from "../tools/json-schema.ts";
import type { ToolDefinition } from "../tools/definition.ts";
import { finalEventForValue, type StreamEvent } from "./events.ts";
import type { InlineSkill, PresetSpec, SubAgentSpec } from "./specs.ts";
import type { ThreadMessageInput } from "./threads.ts";
import type { AgentRunDeps } from "./agent-run-deps.ts";
import type { AgentRunRecord } from "./agent-runs.ts";
import type { ToolCallOptions, ToolTarget } from "./agent-tools.ts";

/**
 * The run options every agent receives (the seed's `run` keyword arguments, camelCase).
 * Tool-shaped fields are honoured by tools-agent-shaped agents; role-specific agents read
 * their own keys (from `AgentRunInput.extra`) off the same object.
 */
export interface AgentRunOptions {
  toolNames?: string[];
  presets?: PresetSpec[];
  subagents?: SubAgentSpec[];
  /** Templated: `{{name}}` is replaced from `variables` (docs/agent-stream.md). */
  systemMessage?: string;
  userMessage?: string;
  variables?: Record<string, unknown>;
  /** A JSON Schema the final answer must match (→ StructuredFinal). */
  responseFormat?: JsonSchema;
  /** Tool name → `true` or `{ allowedDecisions?, description? }`. */
  interruptOn?: Record<string, unknown>;
  skills?: string[];
  inlineSkills?: InlineSkill[];
  recursionLimit?: number;
  threadId?: string;
  /** The answer to the pause being resumed (decisions, or interaction/ask answers). */
  resume?: unknown;
  resumeCheckpointId?: string;
  llmProvider?: string;
  llmKwargs?: Record<string, unknown>;
  /** A registered loop strategy (docs/plugins.md §4). @default "tools" */
  strategy?: string;
  /** Where the thread memory is kept (docs/plugins.md §3). @default "database" */
  checkpointProvider?: string;
  /** Where the agent's long-term store is kept (docs/plugins.md §3). @default "database" */
  storeProvider?: string;
  /**
   * Live tools, for in-process callers only: `defineTool` definitions the model may call
   * beside `toolNames`. Never stored, never in the ToolInput; each call still goes through
   * the dispatch chokepoint with its tier (docs/run-options.md §4).
   */
  tools?: ToolDefinition[];
  [key: string]: unknown;
}

/** What a run gives its agent beside the options. */
export interface AgentContext {
  runId: string;
  /** Always set: the input's thread, or one minted for this run. */
  threadId: string;
  caller: Caller;
  /**
   * Aborted when the run is cancelled (a cancel, the tool run that started it, server
   * shutdown). Contract: stop promptly when it fires; the run then ends CANCELLED whatever
   * the agent yields after.
   */
  signal: AbortSignal;
  log: Logger;
  /**
   * Runs a tool through the dispatch chokepoint as the run's caller (door "agent",
   * parentRunId = this run, this run's `signal` as the caller signal: cancelling the run
   * cancels the call). `target` is a surface name or a live tool's entry. Contract: the
   * only way an agent may run a tool; never throws for a tool failure — read `run.status`.
   * `options.onProgress` is told each RUN_PROGRESS of that run (the tool's `ctx.onUpdate`,
   * docs/tool-authoring.md §5).
   */
  runTool(target: ToolTarget, input: unknown, options?: ToolCallOptions): Promise<RunOutcome>;
  /** Ends a tool run this run's agent started (a parked one nobody will resume); another id is left alone. */
  cancelTool(toolRunId: string): Promise<void>;
  /** Threads, skills, providers and the surface, for agents that need them. */
  services: AgentRunDeps;
  /**
   * The run's scope of secrets: the runtime's, and, for a run an agent-as-tool call started, what its calling run
   * learned (docs/security-model.md §2). The run's events are scrubbed of it; an agent that stores anything itself
   * (its thread, checkpoint, progress) scrubs it of this scope, and learns what its secret-tier tools return into it.
   */
  secrets: SecretScope;
  /** The paused run this run resumes (its checkpoint included), or null. */
  resuming: AgentRunRecord | null;
  /** What {@link Agent.prepare} returned for this run. */
  prepared: unknown;
  /**
   * Sets what a later resume needs. Contract: call it before yielding a pause terminal
   * (interrupt, suspend, asks); it is stored atomically with that terminal.
   */
  checkpoint(value: unknown): void;
  /**
   * Stores the run's progress while it runs (docs/agent-stream.md §4.3), ordered after every event yielded before: what
   * a continuation on another instance rebuilds the run from, given back as `resuming.checkpoint.progress` (with
   * `resuming.id` the run's own id). Optional: an agent that never calls it is started again from its input.
   */
  progress?(value: unknown): void;
}

/** What {@link Agent.prepare} receives: the start as it will run, before the run exists. */
export interface AgentPrepareContext {
  caller: Caller;
  threadId: string;
  services: AgentRunDeps;
  resuming: AgentRunRecord | null;
  /**
   * The failed or cancelled run this run forks past, and its checkpoint in the thread: read the history as it stood
   * there (docs/agent-stream.md §6.1).
   */
  forking?: { run: AgentRunRecord; mark: number } | null;
}

/** What `appendThreadMessages` receives beside its arguments. */
export interface AgentThreadContext {
  caller: Caller;
  services: AgentRunDeps;
}

/**
 * The uniform agent contract. Implement `run`; override `astream` only when the agent
 * produces real per-step events, and then implement `run` by draining it ({@link drain}).
 *
 * A subclass declares, as static members: `toolName` (wire-safe; also its surface tool
 * name), `toolDescription` (the LLM-facing text), `ToolInput` (a zod object of its tool
 * parameters), and optionally `specRunnable`, `presetBakeableFields`, `tier` and
 * `timeoutSeconds`. A field is preset-bakeable iff the agent is `specRunnable` or the
 * field is listed in `presetBakeableFields`.
 */
export abstract class Agent {
  declare static toolName: string;
  declare static toolDescription: string;
  declare static ToolInput: z.ZodObject;
  /** The ToolInput advertises exactly the fields the run honours: every field is bakeable. @default false */
  static specRunnable = false;
  /** ToolInput fields a preset may bake on an agent that is not specRunnable. @default [] */
  static presetBakeableFields: readonly string[] = [];
  /** The tier of the agent's own surface entry; its tool calls are checked one by one. @default "read" */
  static tier: Tier = "read";
  /** Per-attempt timeout of the agent's surface entry. @default 600 */
  static timeoutSeconds = 600;
  /**
   * Keys beyond the run options and the ToolInput fields that a start may pass (a
   * role-specific agent's own parameters); any other key is refused, naming it. @default []
   */
  static extrasKeys: readonly string[] = [];

  /**
   * Maps the validated tool input to run options when the agent is called as a tool.
   * The default passes every field through. Contract: an error thrown here must carry a
   * constant, hand-written message that never quotes an input value (baked input may hold
   * credentials); the platform also scrubs every input value from it.
   */
  static fromToolInput(validated: Record<string, unknown>): AgentRunOptions {
    return { ...validated };
  }

  /**
   * Checks a start before its run is created. Contract: throw an `ApiError` to reject the
   * start (nothing is stored); the value returned reaches the run as `ctx.prepared`.
   */
  async prepare(options: AgentRunOptions, ctx: AgentPrepareContext): Promise<unknown> {
    void options;
    if (ctx.resuming)
      throw new ApiError(
        "CONFLICT",
        `agent "${(this.constructor as typeof Agent).toolName}" cannot resume a paused run`,
      );
    return undefined;
  }

  /** Runs once and returns the final value. Contract: tool failures are data, not throws. */
  abstract run(options: AgentRunOptions, ctx: AgentContext): Promise<unknown>;

  /** The default for non-streaming agents: run once, emit one terminal. */
  async *astream(options: AgentRunOptions, ctx: AgentContext): AsyncGenerator<StreamEvent> {
    yield finalEventForValue(await this.run(options, ctx));
  }

  /**
   * Records messages in a thread's history without running. An agent without thread
   * memory refuses.
   */
  async appendThreadMessages(threadId: string, messages: ThreadMessageInput[], ctx: AgentThreadContext): Promise<void> {
    void threadId;
    void messages;
    void ctx;
    throw new AgentCapabilityError(`agent "${(this.constructor as typeof Agent).toolName}" keeps no thread memory`);
  }
}

/** The constructor `app.agent(...)` takes. */
export interface AgentClass {
  new (): Agent;
  toolName: string;
  toolDescription: string;
  ToolInput: z.ZodObject;
  specRunnable: boolean;
  presetBakeableFields: readonly string[];
  tier: Tier;
  timeoutSeconds: number;
  extrasKeys: readonly string[];
  fromToolInput(validated: Record<string, unknown>): AgentRunOptions;
}

/** An agent was asked for something it does not do (e.g. thread memory). */
export class AgentCapabilityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AgentCapabilityError";
  }
}

/** Raised by {@link drain} when a non-streaming caller drains a run that stopped at an interrupt. */
export class AgentInterruptedError extends Error {
  constructor(readonly interrupts: Extract<StreamEvent, { type: "interrupt_final" }>[]) {
    super(
      `the agent run stopped at an approval interrupt (${interrupts.map((i) => i.reason ?? i.interruptId).join(", ")}); resume it with a decision`,
    );
    this.name = "AgentInterruptedError";
  }
}

/** What a drain returns for a SuspendedFinal: the run did not fail, it waits out of band. */
export interface SuspendedReceipt {
  suspended: true;
  threadId: string;
  interactionIds: string[];
  callerInteractionIds: string[];
  expiryAt: string | null;
}

/**
 * The drain rule: consumes a stream to its one terminal event. A message returns its
 * text, structured output its data, an interrupt throws {@link AgentInterruptedError}, a
 * suspend returns a {@link SuspendedReceipt}, asks return `{ asks }`. No terminal, or an
 * event after the terminal, violates the contract and throws.
 */
export async function drain(events: AsyncIterable<StreamEvent>): Promise<unknown> {
  let terminal: StreamEvent | null = null;
  for await (const e of events) {
    if (terminal) throw new Error(`agent stream contract violated: "${e.type}" after the terminal "${terminal.type}"`);
    if (e.final) terminal = e;
  }
  if (!terminal) throw new Error("agent stream contract violated: the stream ended without a terminal event");
  return valueOfTerminal(terminal);
}

/** The drained value of one terminal event (see {@link drain}). */
export function valueOfTerminal(terminal: StreamEvent): unknown {
  switch (terminal.type) {
    case "message_final":
      return terminal.text;
    case "structured_final":
      return terminal.data;
    case "interrupt_final":
      throw new AgentInterruptedError([terminal]);
    case "suspended_final":
      return {
        suspended: true,
        threadId: terminal.threadId,
        interactionIds: terminal.interactionIds,
        callerInteractionIds: terminal.callerInteractionIds,
        expiryAt: terminal.expiryAt,
      } satisfies SuspendedReceipt;
    case "asks_final":
      return { asks: terminal.asks };
    default:
      throw new Error(`agent stream contract violated: "${terminal.type}" is not a terminal event`);
  }
}
