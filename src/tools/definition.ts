import type { Limits } from "../limits/limits.ts";
import type { Caller, Tier } from "../auth/roles.ts";
import type { RetryPolicy } from "../retry/policy.ts";
import type { JsonSchema } from "./json-schema.ts";

export type ExecutionMode = "sequential" | "parallel";

/** A structured logger handed to tool bodies; lines carry the run id. */
export interface ToolLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** What a tool body receives beside its input. */
export interface ToolContext {
  /** Aborted on timeout, cancellation or shutdown. Contract: a body should stop promptly when it fires. */
  signal: AbortSignal;
  runId: string;
  /**
   * The idempotency key the run was requested with, when the caller gave one (the same on every attempt; absent on a
   * resumed run).
   */
  idempotencyKey?: string;
  /**
   * The id of the call this run carries out, when its caller has one: an agent's tool call
   * (the `callId` of its ToolCallStep and ToolResultStep), or an MCP `tools/call` request's
   * JSON-RPC id. Absent otherwise, and on a resumed run. Pass it to `toolResult.fromError`.
   */
  toolCallId?: string;
  /** 1-based attempt number within the run's retry loop. */
  attempt: number;
  caller: Caller;
  log: ToolLogger;
  /** Registers a secret value: it is replaced by "[redacted]" in every record, event and log line. */
  redact(secret: string): void;
  /**
   * A new scope under this run's secrets (the runtime's, the run's own and those of the agent run that called it): what
   * an agent run the body starts (an agent as a tool, `agent/agent-as-tool.ts`) scrubs what it stores and streams with.
   * Absent outside a dispatched attempt.
   */
  childSecrets?(): import("../secrets/secrets.ts").SecretScope;
  /**
   * Runs another tool through the chokepoint as the same caller, recorded as a child run.
   * Contract: the only way a body may call another tool.
   */
  runTool(name: string, input: Record<string, unknown>): Promise<import("../dispatch/run-record.ts").RunRecord>;
  /**
   * Opens an interaction now (to hand its callback URL out before parking); return
   * `park({ interactionIds: [id] })` to wait on it.
   */
  /** A persisted key-value store with expiry, shared by every instance (what `cache` uses). */
  store: import("../db/expiring-store.ts").ExpiringStore;
  openInteraction(
    request: import("../interactions/park.ts").InteractionRequest,
  ): Promise<import("../interactions/park.ts").OpenedInteraction>;
  /**
   * Reports a partial update while the body runs (the seed's `on_update`): a RUN_PROGRESS
   * run event, an agent's ToolProgressStep, an MCP progress notification
   * (docs/tool-authoring.md §5). Rate- and size-bounded; a secret-tier run's message and
   * details are redacted. Contract: returns at once (nothing to await); throws only for a
   * malformed update.
   */
  onUpdate(update: import("./tool-update.ts").ToolUpdate): void;
}

/** A tool body. Contract: return a value or a `toolResult(...)`; throw `ToolError` to classify a failure. */
export type ToolHandler<I = Record<string, unknown>> = (input: I, ctx: ToolContext) => unknown | Promise<unknown>;

/** A validated tool, as the registry holds it. Built only by `defineTool` / `app.tool`. */
export interface ToolDefinition {
  readonly name: string;
  readonly label?: string;
  readonly description: string;
  /** Input JSON Schema (draft 2020-12, root `type: "object"`). */
  readonly parameters: JsonSchema;
  readonly outputSchema?: JsonSchema;
  readonly execute: ToolHandler;
  readonly executionMode: ExecutionMode;
  readonly tier: Tier;
  /** A policy declared with the tool; registered on its name. */
  readonly retry?: RetryPolicy;
  /** Limits declared with the tool (docs/flow-control.md §2). */
  readonly limits?: Limits;
  /** Per-attempt timeout. @default 30 */
  readonly timeoutSeconds: number;
  /** false keeps the tool off the API surface (curation); it can still be a base. @default true */
  readonly apiTool: boolean;
  /** In the pausing set: the body may return `park(...)`. */
  readonly pauses: boolean;
  readonly resume?: (state: unknown, answers: Record<string, unknown>, ctx: ToolContext) => unknown;
  /** One line the tools agent lists under "## Tools" in its system message (docs/tool-authoring.md §1). */
  readonly promptSnippet?: string;
  /** Rules the tools agent adds under "## Tool guidelines" when the tool is in a run. */
  readonly promptGuidelines?: readonly string[];
  /** The extension that registered the tool (`ExtensionOptions.tools`); absent when registered directly. */
  readonly source?: string;
  /** Converts validated JSON input for the body (zod parse for `app.tool`). */
  readonly parse?: (
    input: Record<string, unknown>,
  ) => { ok: true; value: unknown } | { ok: false; issues: import("../errors.ts").Issue[] };
  /** Where it was registered (module path, "demo", "builtin"). */
  readonly module: string;
}
