import type { App } from "../app.ts";
import type { Caller } from "../auth/roles.ts";
import type { Db } from "../db/client.ts";
import type { RunStore } from "../dispatch/run-store.ts";
import type { Dispatcher } from "../dispatch/dispatcher.ts";
import type { Bus } from "../events/bus.ts";
import type { Logger } from "../log.ts";
import type { Surface } from "../registry/surface.ts";
import type { LogWriter } from "../runlog/log-writer.ts";
import type { Secrets, SecretScope } from "../secrets/secrets.ts";
import type { AgentClass, AgentRunOptions } from "./agent.ts";
import type { AgentPluginCatalog } from "./agent-plugin.ts";
import type { AgentRunRecord, AgentRunStore } from "./agent-runs.ts";
import type { AgentRunDeps } from "./agent-run-deps.ts";
import type { AgentEventRecord, TerminalEvent } from "./events.ts";
import type { InteractionsPort } from "./interactions-port.ts";
import type { ThreadStore } from "./threads.ts";

/** What the agent layer needs from the runtime. */
export interface AgentServiceDeps {
  db: Db;
  surface: Surface;
  dispatcher: Dispatcher;
  runs: RunStore;
  /** The run log's writer: agent stream entries are group-committed with tool runs' events. */
  runLog: LogWriter;
  bus: Bus;
  log: Logger;
  secrets: Secrets;
  instanceId: string;
  /** Runtime-owned registrations; the built-in tools agent is registered here. */
  builtins: App;
  /** Every handle of the surface, in order: a later one's agent overrides an earlier one's of the same name. */
  apps: App[];
  /** The runtime's plugin catalog: loop strategies and agent storage providers of every handle (docs/plugins.md). */
  plugins: AgentPluginCatalog;
  interactions?: InteractionsPort | null;
  /** Provider settings (TAI_LLM_*, ANTHROPIC_API_KEY). @default process.env */
  env?: NodeJS.ProcessEnv;
  /**
   * The ids of the server instances still live, for {@link AgentService.recover} called
   * without them. Contract: may forget instances that are gone; a run whose instance is
   * not listed is failed as "interrupted by restart". The runtime's periodic sweep is
   * `cluster/orphan-sweep.ts`.
   */
  liveInstances?: () => Promise<string[]>;
  /** Told the tokens of each RunUsage a run emits (the runtime's metrics, `tai42_llm_tokens_total`). */
  observer?: { llmTokens(model: string | null, input: number, output: number): void };
}

/** One start, as every door states it. */
export interface StartRequest {
  /** @default "tools_agent" */
  agent?: string | null;
  options: AgentRunOptions;
  caller: Caller;
  /**
   * The run's scope of secrets, when a tool run starts it (an agent called as a tool: `ToolContext.childSecrets`): it
   * holds what the calling agent run learned, and the run's stored input, thread, events and tool calls are scrubbed
   * of it (docs/security-model.md §2). Absent: a new scope of the runtime's secrets.
   */
  secrets?: SecretScope;
}

/** A run that was started. */
export interface StartedRun {
  runId: string;
  threadId: string;
  agent: string;
  /**
   * Where its stream starts for this start: 0, or the SuspendedFinal a joined continuation follows
   * (docs/agent-stream.md §7.1).
   */
  afterSeq?: number;
}

/** A run that ended with its terminal event. */
export interface FinishedRun extends StartedRun {
  final: AgentEventRecord & TerminalEvent;
}

/**
 * What the run steps (start, launch, resume, cancel, fork, agent-as-tool) read of the agent
 * service: `agent-service.ts` implements it, and the steps never import the service back.
 */
export interface AgentHost {
  readonly store: AgentRunStore;
  readonly threads: ThreadStore;
  readonly services: AgentRunDeps;
  classes(): Map<string, AgentClass>;
  start(req: StartRequest): Promise<StartedRun>;
  awaitEnd(started: StartedRun, signal?: AbortSignal): Promise<FinishedRun>;
  open(runId: string, caller: Caller): Promise<AgentRunRecord>;
  cancel(runId: string): boolean;
  continueSuspended(runId: string): Promise<boolean>;
}
