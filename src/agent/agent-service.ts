import { startedRun } from "../auth/visibility.ts";
import { randomUUID } from "node:crypto";
import type { App } from "../app.ts";
import type { Caller } from "../auth/roles.ts";
import type { Db } from "../db/client.ts";
import type { RunStore } from "../dispatch/run-store.ts";
import type { LogWriter } from "../runlog/log-writer.ts";
import type { Dispatcher } from "../dispatch/run-tool.ts";
import { unstorableIssues } from "../db/storable.ts";
import { ApiError, describeIssues, ToolError } from "../errors.ts";
import type { Bus } from "../events/bus.ts";
import type { Logger } from "../log.ts";
import type { Surface } from "../registry/surface.ts";
import type { ToolContext } from "../tools/definition.ts";
import { toolResult } from "../tools/result.ts";
import type { Secrets } from "../secrets/secrets.ts";
import { AgentCapabilityError, valueOfTerminal, type AgentClass, type AgentContext, type AgentRunOptions } from "./agent.ts";
import { agentInputSchema, bakeableFields } from "./agent-class.ts";
import { agentEntry } from "./agent-entry.ts";
import { AgentRunFailedError, classifyAgentError } from "./agent-errors.ts";
import { AgentRunStore, PAUSED, type AgentRunRecord, type AgentRunStatus } from "./agent-runs.ts";
import type { AgentServices, InteractionsPort } from "./agent-services.ts";
import { runLog } from "./agent-stream.ts";
import type { AgentEventRecord, AgentLogEntry, RunFailedRecord, StreamEvent, TerminalEvent } from "./events.ts";
import { ProviderRegistry } from "./providers/registry.ts";
import { SkillStore } from "./skills.ts";
import { checkThreadMessages, ThreadStore, type ThreadView } from "./threads.ts";
import { ToolsAgent } from "./tools-agent/tools-agent.ts";

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
  interactions?: InteractionsPort | null;
  /** Provider settings (TAI_LLM_*, ANTHROPIC_API_KEY). @default process.env */
  env?: NodeJS.ProcessEnv;
  /**
   * The ids of the server instances still live. Contract: may forget instances that are
   * gone; a run whose instance is not listed is failed as "interrupted by restart".
   */
  liveInstances?: () => Promise<string[]>;
  /** Milliseconds between sweeps for runs of instances that are gone. @default 10000 */
  recoverEveryMs?: number;
}

/** One start, as every door states it. */
export interface StartRequest {
  /** @default "tools_agent" */
  agent?: string | null;
  options: AgentRunOptions;
  caller: Caller;
}

/** A run that was started. */
export interface StartedRun {
  runId: string;
  threadId: string;
  agent: string;
}

/** A run that ended with its terminal event. */
export interface FinishedRun extends StartedRun {
  final: AgentEventRecord & TerminalEvent;
}

/** An agent as the `agents` query lists it. */
export interface AgentInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  specRunnable: boolean;
  presetBakeableFields: string[];
}

export const DEFAULT_AGENT = "tools_agent";

const RANK: Record<Caller["role"], number> = { READER: 0, USER: 1, ADMIN: 2 };

/** The less privileged of two roles (an unknown role counts as READER). */
function lowerRole(a: Caller["role"], b: Caller["role"]): Caller["role"] {
  return (RANK[a] ?? 0) <= (RANK[b] ?? 0) ? a : b;
}

/** How a thread records its owner: the key name, or "" for the anonymous caller. */
function ownerKey(caller: Caller): string {
  return caller.keyName ?? "";
}

const STATUS_OF: Record<TerminalEvent["type"], AgentRunStatus> = {
  message_final: "SUCCEEDED",
  structured_final: "SUCCEEDED",
  interrupt_final: "INTERRUPTED",
  suspended_final: "SUSPENDED",
  asks_final: "ASKED",
};

/**
 * Agent runs (docs/agent-stream.md): starts and resumes them, runs each in the background
 * (a run does not belong to its subscriber), stores every event with its seq before
 * publishing it, and serves a run's log as replay-then-live. Domain code: no GraphQL.
 */
export class AgentService {
  readonly providers: ProviderRegistry;
  readonly threads: ThreadStore;
  readonly skills: SkillStore;
  readonly store: AgentRunStore;
  private readonly active = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private closing = false;
  private readonly sweep: NodeJS.Timeout | null = null;

  constructor(private readonly deps: AgentServiceDeps) {
    this.providers = new ProviderRegistry(deps.env ?? process.env);
    this.threads = new ThreadStore(deps.db);
    this.skills = new SkillStore(deps.db);
    this.store = new AgentRunStore(deps.db, deps.runLog);
    deps.surface.addSource(() => [...this.classes().values()].map((cls) => agentEntry(cls, (c, input, ctx) => this.invokeAsTool(c, input, ctx))));
    if (!deps.builtins.agents.has(DEFAULT_AGENT)) deps.builtins.agent(ToolsAgent);
    if (deps.liveInstances) {
      this.sweep = setInterval(() => {
        this.recover().catch((e: Error) => deps.log.warn("failing interrupted agent runs failed", { error: e.message }));
      }, deps.recoverEveryMs ?? 10_000);
      this.sweep.unref();
    }
  }

  /** Interactions arrive after construction in some runtimes; suspends need them. */
  set interactions(port: InteractionsPort | null) {
    this.deps.interactions = port;
  }

  get services(): AgentServices {
    const d = this.deps;
    return { surface: d.surface, threads: this.threads, skills: this.skills, providers: this.providers, runs: d.runs, dispatcher: d.dispatcher, interactions: d.interactions ?? null, secrets: d.secrets };
  }

  /** Registered agents by name: built-ins first, later handles overriding them. */
  classes(): Map<string, AgentClass> {
    return new Map(this.deps.apps.flatMap((a) => [...a.agents]));
  }

  list(): AgentInfo[] {
    return [...this.classes().values()]
      .map((c) => ({ name: c.toolName, description: c.toolDescription, inputSchema: agentInputSchema(c), specRunnable: c.specRunnable, presetBakeableFields: Object.keys(c.ToolInput.shape).filter((f) => bakeableFields(c) === "all" || c.presetBakeableFields.includes(f)) }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Starts a run, or resumes the paused run of `options.threadId` when `options.resume` is
   * set. Every rejection happens here, before anything is stored (ApiError).
   */
  async start(req: StartRequest): Promise<StartedRun> {
    if (this.closing) throw new ApiError("CONFLICT", "the server is shutting down; no new agent runs are accepted");
    let options = Object.fromEntries(Object.entries(req.options).filter(([, v]) => v !== undefined && v !== null)) as AgentRunOptions;
    let agentName = req.agent ?? undefined;
    let resuming: AgentRunRecord | null = null;
    if (options.resume !== undefined) {
      if (!options.threadId) throw ApiError.badInput("resume needs the threadId of the paused run", [{ path: "/threadId", message: "is required with resume" }]);
      if (options.userMessage !== undefined) throw ApiError.badInput("userMessage cannot be sent with resume: the paused turn is answered first", [{ path: "/userMessage", message: "is not allowed with resume" }]);
      const paused = await this.store.latestOnThread(options.threadId);
      if (!paused) throw new ApiError("NOT_FOUND", `no agent run on thread "${options.threadId}"`);
      this.checkOwner(paused, req.caller, "resume");
      if (!PAUSED.includes(paused.status)) throw new ApiError("CONFLICT", `thread "${options.threadId}" has nothing to resume: its last run ${paused.id} is ${paused.status}`);
      if (options.resumeCheckpointId && options.resumeCheckpointId !== paused.id)
        throw new ApiError("CONFLICT", `resumeCheckpointId "${options.resumeCheckpointId}" is not the paused run of this thread (${paused.id})`, [{ path: "/resumeCheckpointId", message: "is stale" }]);
      if (agentName && agentName !== paused.agent) throw ApiError.badInput(`the paused run belongs to agent "${paused.agent}", not "${agentName}"`, [{ path: "/agent", message: `must be "${paused.agent}"` }]);
      agentName = paused.agent;
      const inherited = Object.fromEntries(Object.entries(paused.input).filter(([k]) => !["resume", "userMessage", "resumeCheckpointId"].includes(k)));
      options = { ...inherited, ...options };
      resuming = paused;
    }
    const name = agentName ?? DEFAULT_AGENT;
    const cls = this.classes().get(name);
    if (!cls) throw ApiError.badInput(`no agent named "${name}" (known: ${[...this.classes().keys()].join(", ")})`, [{ path: "/agent", message: `no agent named "${name}"` }]);
    const threadId = options.threadId ?? randomUUID();
    if (typeof threadId !== "string" || threadId.length < 1 || threadId.length > 200) throw ApiError.badInput("threadId must be 1 to 200 characters", [{ path: "/threadId", message: "must be 1 to 200 characters" }]);
    if (!resuming) {
      await this.checkThread(threadId, req.caller, "use");
      const running = await this.store.runningOnThread(threadId);
      if (running) throw new ApiError("CONFLICT", `thread "${threadId}" has a run in progress (${running.id}); wait for it to end`);
    }
    const unstorable = unstorableIssues(options);
    if (unstorable.length) throw ApiError.badInput(`invalid input for agent "${name}": ${describeIssues(unstorable)}`, unstorable);
    const parsed = cls.ToolInput.safeParse(options);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ path: i.path.length ? `/${i.path.join("/")}` : "", message: i.message }));
      throw ApiError.badInput(`invalid input for agent "${name}": ${issues.map((i) => `${i.path || "/"}: ${i.message}`).join("; ")}`, issues);
    }
    options = { ...options, ...(parsed.data as Record<string, unknown>), threadId };
    const agent = new cls();
    const prepared = await agent.prepare(options, { caller: req.caller, threadId, services: this.services, resuming });
    if (resuming && !(await this.store.claim(resuming.id))) throw new ApiError("CONFLICT", `the paused run ${resuming.id} was already resumed`);

    const runId = randomUUID();
    let created = false;
    try {
      this.checkThreadOwner(await this.threads.ensure(threadId, ownerKey(req.caller)), threadId, req.caller, "use");
      await this.store.create({
        id: runId,
        agent: cls.toolName,
        threadId,
        input: this.deps.secrets.scrub(options) as Record<string, unknown>,
        callerRole: req.caller.role,
        callerKey: req.caller.keyName,
        checkpoint: { instanceId: this.deps.instanceId, resumes: resuming?.id ?? null },
        startedAt: new Date().toISOString(),
      });
      created = true;
      const rival = await this.store.rivalOnThread(threadId, runId, resuming);
      if (rival)
        throw new ApiError(
          "CONFLICT",
          rival.status === "RUNNING" ? `thread "${threadId}" has a run in progress (${rival.id}); wait for it to end` : `thread "${threadId}" moved on since run ${resuming!.id} paused (run ${rival.id}); there is nothing to resume`,
        );
    } catch (e) {
      if (created) await this.store.discard(runId);
      if (resuming) await this.store.unclaim(resuming.id, resuming.status);
      throw e;
    }
    // A resume never raises the rights the paused conversation ran with: an ADMIN who
    // approves a USER's pending call lets the loop go on with the USER's role.
    const caller = resuming ? { ...req.caller, role: lowerRole(req.caller.role, resuming.callerRole as Caller["role"]) } : req.caller;
    this.launch(runId, threadId, agent, options, caller, resuming, prepared);
    return { runId, threadId, agent: cls.toolName };
  }

  /**
   * A run the caller may join: one it started, or any for an ADMIN. Another caller's run
   * does not exist for it (NOT_FOUND), as every run door answers (auth/visibility.ts).
   */
  async open(runId: string, caller: Caller): Promise<AgentRunRecord> {
    const run = await this.store.get(runId);
    if (!run || !startedRun(caller, run)) throw new ApiError("NOT_FOUND", `no agent run with id "${runId}"`);
    return run;
  }

  /** The run's log after `afterSeq`, then live, ending after its terminal (docs/agent-stream.md §3). */
  events(runId: string, afterSeq: number, signal: AbortSignal): AsyncGenerator<AgentLogEntry> {
    return runLog({ bus: this.deps.bus, store: this.store }, runId, afterSeq, signal);
  }

  /** Waits for a run's terminal; a failed run throws {@link AgentRunFailedError}. */
  async awaitEnd(started: StartedRun, signal?: AbortSignal): Promise<FinishedRun> {
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      for await (const e of this.events(started.runId, 0, controller.signal)) {
        if (e.type === "run_failed") throw new AgentRunFailedError(e.runId, e.kind, e.message, e.seq - 1);
        if (e.final) return { ...started, final: e as FinishedRun["final"] };
      }
      throw new AgentRunFailedError(started.runId, "CANCELLED", "stopped waiting for the agent run", 0);
    } finally {
      signal?.removeEventListener("abort", onAbort);
      controller.abort();
    }
  }

  /** The non-streaming drain of a start: its terminal event (runAgent). */
  async run(req: StartRequest, signal?: AbortSignal): Promise<FinishedRun> {
    return this.awaitEnd(await this.start(req), signal);
  }

  /** Aborts a run in flight on this instance; it ends CANCELLED. */
  cancel(runId: string): boolean {
    const a = this.active.get(runId);
    if (!a) return false;
    a.controller.abort();
    return true;
  }

  /** Records messages in a thread without running (the named agent must keep thread memory). */
  async appendThreadMessages(agentName: string | null | undefined, threadId: string, messages: unknown, caller: Caller): Promise<ThreadView> {
    const checked = checkThreadMessages(messages);
    if (!threadId || threadId.length > 200) throw ApiError.badInput("threadId must be 1 to 200 characters", [{ path: "/threadId", message: "must be 1 to 200 characters" }]);
    const name = agentName ?? DEFAULT_AGENT;
    const cls = this.classes().get(name);
    if (!cls) throw ApiError.badInput(`no agent named "${name}"`, [{ path: "/agent", message: `no agent named "${name}"` }]);
    const existed = await this.checkThread(threadId, caller, "write to");
    const running = await this.store.runningOnThread(threadId);
    if (running) throw new ApiError("CONFLICT", `thread "${threadId}" has a run in progress (${running.id}); append after it ends`);
    try {
      this.checkThreadOwner(await this.threads.ensure(threadId, ownerKey(caller)), threadId, caller, "write to");
      await new cls().appendThreadMessages(threadId, checked, { caller, services: this.services });
    } catch (e) {
      if (!existed) await this.threads.dropIfEmpty(threadId);
      if (e instanceof AgentCapabilityError) throw ApiError.badInput(e.message, [{ path: "/agent", message: e.message }]);
      throw e;
    }
    return (await this.threads.get(threadId))!;
  }

  /** A thread, if the caller may read it (the caller of its first run, or an ADMIN). */
  async thread(threadId: string, caller: Caller): Promise<ThreadView | null> {
    const view = await this.threads.get(threadId);
    if (!view) return null;
    await this.checkThread(threadId, caller, "read");
    return view;
  }

  /** Fails runs left RUNNING by instances that are gone ("interrupted by restart"). */
  async recover(liveIds?: string[]): Promise<string[]> {
    const live = new Set([this.deps.instanceId, ...(liveIds ?? (await this.deps.liveInstances?.()) ?? [])]);
    const failed: string[] = [];
    for (const run of await this.store.orphans(live)) {
      const entry: RunFailedRecord = { type: "run_failed", final: true, seq: (await this.store.lastSeq(run.id)) + 1, runId: run.id, kind: "INTERNAL", message: "interrupted by restart" };
      const { count } = await this.deps.db.agentRun.updateMany({ where: { id: run.id, status: "RUNNING" }, data: { status: "FAILED", final: entry as never, finishedAt: new Date() } });
      if (!count) continue;
      await this.store.appendEvent(entry as never);
      this.deps.bus.publish("agentEvent", entry);
      failed.push(run.id);
    }
    if (failed.length) this.deps.log.warn("agent runs interrupted by a restart were marked FAILED", { count: failed.length });
    return failed;
  }

  /** Stops accepting runs, waits up to `graceMs` for those in flight, then cancels the rest. */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    if (this.sweep) clearInterval(this.sweep);
    const all = () => Promise.allSettled([...this.active.values()].map((a) => a.done));
    const timer = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), graceMs).unref());
    if ((await Promise.race([all(), timer])) === "timeout") {
      for (const a of this.active.values()) a.controller.abort();
      await all();
    }
  }

  get runningCount(): number {
    return this.active.size;
  }

  /**
   * Only the thread's owner (the caller who created it: same key, or both anonymous) or an
   * ADMIN may use, read or write a thread. A thread from before owners were recorded
   * belongs to the caller of its first run.
   */
  private async checkThread(threadId: string, caller: Caller, what: string): Promise<boolean> {
    const owner = await this.threads.owner(threadId);
    if (owner === undefined) return false;
    if (owner !== null) this.checkThreadOwner(owner, threadId, caller, what);
    else {
      const first = await this.store.firstOnThread(threadId);
      if (first) this.checkOwner(first, caller, what);
    }
    return true;
  }

  private checkThreadOwner(owner: string | null, threadId: string, caller: Caller, what: string): void {
    if (owner === null || caller.role === "ADMIN" || owner === ownerKey(caller)) return;
    throw new ApiError("FORBIDDEN", `only the caller who created thread "${threadId}", or an ADMIN, may ${what} it`);
  }

  private checkOwner(run: AgentRunRecord, caller: Caller, what: string): void {
    if (startedRun(caller, run)) return;
    throw new ApiError("FORBIDDEN", `only the caller who started agent run ${run.id}, or an ADMIN, may ${what} its thread`);
  }

  /** Runs the agent's stream in the background, storing then publishing each event. */
  private launch(runId: string, threadId: string, agent: InstanceType<AgentClass>, options: AgentRunOptions, caller: Caller, resuming: AgentRunRecord | null, prepared: unknown): void {
    const { dispatcher, bus, log } = this.deps;
    const controller = new AbortController();
    let checkpoint: unknown = null;
    const ctx: AgentContext = {
      runId,
      threadId,
      caller,
      signal: controller.signal,
      log: log.child({ agentRunId: runId }),
      runTool: (tool, input) => dispatcher.runDetailed({ tool, input, caller, door: "agent", parentRunId: runId }),
      services: this.services,
      resuming,
      prepared,
      checkpoint: (value) => {
        checkpoint = value;
      },
    };
    let seq = 0;
    const done = (async () => {
      try {
        for await (const event of agent.astream(options, ctx) as AsyncIterable<StreamEvent>) {
          // `seq` counts stored entries only: an entry that failed to store leaves no gap
          // (a gap would hold every joiner waiting for it to be filled from the log).
          const rec = this.deps.secrets.scrub({ ...event, agent: event.agent ?? null, seq: seq + 1, runId }) as AgentEventRecord;
          if (rec.final) {
            await this.store.finish(rec, STATUS_OF[rec.type as TerminalEvent["type"]], checkpoint);
            seq = rec.seq;
            bus.publish("agentEvent", rec);
            return;
          }
          await this.store.appendEvent(rec);
          seq = rec.seq;
          bus.publish("agentEvent", rec);
        }
        throw new Error("agent stream contract violated: the stream ended without a terminal event");
      } catch (e) {
        const c = classifyAgentError(e, controller.signal.aborted);
        if (c.unexpected) log.error("agent run failed unexpectedly", { agentRunId: runId, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
        const rec: RunFailedRecord = { type: "run_failed", final: true, seq: ++seq, runId, kind: c.kind, message: this.deps.secrets.scrubText(c.message) };
        try {
          await this.store.finish(rec, c.kind === "CANCELLED" ? "CANCELLED" : "FAILED", null);
        } catch (err) {
          log.error("storing an agent run's failure failed", { agentRunId: runId, error: (err as Error).message });
        }
        bus.publish("agentEvent", rec);
      }
    })();
    this.active.set(runId, { controller, done });
    void done.finally(() => this.active.delete(runId));
  }

  /** An agent dispatched as a tool: start, drain, map the end to a tool outcome. */
  private async invokeAsTool(cls: AgentClass, input: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    let started: StartedRun;
    try {
      started = await this.start({ agent: cls.toolName, options: input, caller: ctx.caller });
    } catch (e) {
      if (e instanceof ApiError) {
        const kind = e.code === "BAD_USER_INPUT" ? "INVALID_INPUT" : e.code === "FORBIDDEN" ? "PERMISSION_DENIED" : e.code === "NOT_FOUND" ? "NOT_FOUND" : "CONFLICT";
        throw new ToolError(e.message, { kind, retryable: false });
      }
      throw e;
    }
    const onAbort = () => this.cancel(started.runId);
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    try {
      const { final } = await this.awaitEnd(started);
      if (final.type === "interrupt_final")
        throw new ToolError(`agent run ${started.runId} on thread ${started.threadId} stopped at an approval interrupt (${final.reason ?? final.interruptId}); resume it with agentStream or runAgent({ threadId, resume })`, { kind: "CONFLICT", retryable: false });
      const value = valueOfTerminal(final);
      const details = { agentRunId: started.runId, threadId: started.threadId };
      return toolResult({ data: value === undefined ? null : value, details });
    } catch (e) {
      if (e instanceof AgentRunFailedError) throw new ToolError(`agent run ${e.runId} failed: ${e.message}`, { kind: e.kind, retryable: false });
      throw e;
    } finally {
      ctx.signal.removeEventListener("abort", onAbort);
    }
  }
}
