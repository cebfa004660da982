import type { AdmissionControl } from "../limits/admission-control.ts";
import type { FlowControl } from "../limits/flow-control.ts";
import type { Caller } from "../auth/roles.ts";
import type { RecordedCaller } from "../auth/stored-caller.ts";
import type { ExpiringStore } from "../db/expiring-store.ts";
import type { Bus } from "../events/bus.ts";
import type { InteractionStore } from "../interactions/interaction-store.ts";
import type { Logger } from "../log.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import type { Surface } from "../registry/surface.ts";
import type { Secrets, SecretScope } from "../secrets/secrets.ts";
import type { DispatchObserver, RunTracer } from "./observe.ts";
import type { Door, RunEventRecord, RunRecord } from "./run-record.ts";
import type { RunStore } from "./run-store.ts";
import type { RunTransitions } from "./run-transitions.ts";

/*
 * The chokepoint's vocabulary (docs/run-lifecycle.md): what a door asks of it, what it needs
 * from the runtime and what it answers. Types only: the dispatcher and its steps import it,
 * it imports none of them back.
 */

/** One dispatch, as every door states it. */
export interface RunRequest {
  /** The surface name to run. */
  tool: string;
  input: unknown;
  caller: Caller;
  door: Door;
  /** A re-issued request with the same key, tool and caller returns the first run. */
  idempotencyKey?: string;
  /** Overrides the entry's per-attempt timeout (capped by it only if smaller). */
  timeoutSeconds?: number;
  parentRunId?: string;
  /**
   * The caller's signal (a parent attempt's through `ctx.runTool`, a door's cancellation):
   * when it aborts, this run is cancelled too. A `ToolError` reason is the run's message.
   */
  signal?: AbortSignal;
  /**
   * The caller's connection (the GraphQL door over HTTP): aborted when it closes. A dispatch whose connection closed
   * before its run is stored is refused, nothing stored (docs/run-lifecycle.md §2, step 4); after that it changes
   * nothing.
   */
  connection?: AbortSignal;
  /**
   * Called with the id of the run this dispatch follows as soon as it is known, before its
   * RUN_STARTED is published (for a re-issued idempotency key, the first run's id).
   * Contract: synchronous and cheap; it must not throw.
   */
  onRun?: (runId: string) => void;
  /**
   * An agent run's live tool (not on the surface): run this entry instead of resolving
   * `tool`; every other step (tier, validation, records, events) is the same.
   */
  live?: SurfaceEntry;
  /**
   * Told each RUN_PROGRESS of this run (`ctx.onUpdate`) once it is stored, as published
   * (redacted for a secret tier), while this instance executes it. Contract: synchronous
   * and cheap; it must not throw.
   */
  onProgress?: (event: RunEventRecord) => void;
  /**
   * The input the run record stores when it must differ from `input` (an agent's call, scrubbed of its run's secrets:
   * docs/security-model.md §3).
   */
  storedInput?: unknown;
  /**
   * The calling run's secrets (an agent run's scope, with what it learned): this run's scope starts under it, so its
   * records, and what an agent its body starts stores (agent-as-tool), are scrubbed of them too
   * (docs/security-model.md §2).
   */
  secrets?: SecretScope;
  /**
   * The call this dispatch carries out (an agent's `ToolCallStep.callId`, an MCP request id): the body's
   * `ctx.toolCallId` and its `ToolResult#toolCallId`.
   */
  toolCallId?: string;
  /**
   * Store the run QUEUED and answer at once; whichever instance has capacity executes it (docs/run-lifecycle.md
   * §11.2). Its input must be storable as it is.
   */
  background?: boolean;
}

/** The queue of background runs, as the chokepoint uses it (`src/queue/run-queue.ts`). */
export interface QueuePort {
  enqueue(runId: string): Promise<void>;
}

/** What the chokepoint needs from the runtime. */
export interface DispatchDeps {
  surface: Surface;
  runs: RunStore;
  /** The run state changes outside an execution: claims, re-drives, hand-backs, operator actions. */
  moves: RunTransitions;
  /** Where background and re-driven runs go; absent: they wait QUEUED for an instance that has one. */
  queue?: QueuePort;
  bus: Bus;
  log: Logger;
  /** The runtime's secrets: `ctx.redact` adds to them; every record is scrubbed of them. */
  secrets: Secrets;
  instanceId: string;
  interactions: InteractionStore;
  store: ExpiringStore;
  /**
   * The caller stored work acts as now (docs/security-model.md §1): the recorded one, never above its key's role now;
   * `revoked` when its key was revoked. Absent: the recorded caller stands.
   */
  callerNow?: (recorded: RecordedCaller) => Promise<Caller | "revoked">;
  /**
   * Reloads the surface when the store holds a newer version; true when it did. Asked before every lookup, answered by
   * a version check that started after the ask (`dispatch/resolve-entry.ts`).
   */
  refresh?: () => Promise<boolean>;
  /** Metrics of every dispatch and execution. */
  observer?: DispatchObserver;
  /** OpenTelemetry spans of runs and attempts; absent when tracing is off. */
  tracer?: RunTracer;
  /** Declared limits (docs/flow-control.md); absent: none is enforced. */
  flow?: FlowControl;
  /** The per-instance bound on open dispatches and on the database's wait; absent: none. */
  admission?: AdmissionControl;
}

/**
 * `run` is the record as stored and published (SECRET tools redacted); `output` is the
 * same run with the real result, for in-process consumers only (agent loop, contrib).
 * Contract: `output` never leaves the process through a door.
 */
export interface RunOutcome {
  run: RunRecord;
  output: RunRecord;
}
