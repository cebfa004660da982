import { isOwnerOrAdmin, threadOwnerKey } from "../auth/ownership.ts";
import type { Caller } from "../auth/roles.ts";
import { ApiError, ToolError } from "../errors.ts";
import { InFlight } from "../runlog/in-flight.ts";
import { failAgentRuns } from "./interrupted-runs.ts";
import { AgentCapabilityError, type AgentClass } from "./agent.ts";
import { invokeAsTool } from "./agent-as-tool.ts";
import { cancelAgentRun } from "./agent-cancel.ts";
import { agentInputSchema, bakeableFields } from "./agent-class.ts";
import { agentEntry } from "./agent-entry.ts";
import { AgentRunFailedError } from "./agent-errors.ts";
import { launchRun } from "./agent-runner.ts";
import { AgentRunStore, type AgentRunRecord } from "./agent-runs.ts";
import type { AgentRunDeps } from "./agent-run-deps.ts";
import { continueSuspended, joinContinued } from "./auto-resume.ts";
import { continuable, continueOrphan } from "./continue-orphans.ts";
import { askCallerEntry } from "./tools-agent/ask-caller.ts";
import {
  admitStart,
  checkThread,
  type AdmittedRun,
  checkThreadOwner,
  DEFAULT_AGENT,
  mayUseStoredThread,
} from "./agent-start.ts";
import { runLog } from "./agent-stream.ts";
import type { AgentLogEntry, RunFailedRecord } from "./events.ts";
import { ProviderRegistry } from "./providers/registry.ts";
import { withoutAgentSessionThread } from "./session-thread.ts";
import { ResponseFormatStore } from "./response-formats.ts";
import { SkillStore } from "./skills.ts";
import { checkThreadMessages, ThreadStore, type ThreadView } from "./threads.ts";
import { ToolsAgent } from "./tools-agent/tools-agent.ts";
import { BUILTIN_STORAGE, builtinStorage } from "./storage/builtin-storage.ts";

export { DEFAULT_AGENT } from "./agent-start.ts";
export type { AgentServiceDeps, FinishedRun, StartedRun, StartRequest } from "./agent-host.ts";
import type { AgentHost, AgentServiceDeps, FinishedRun, StartedRun, StartRequest } from "./agent-host.ts";

/** An agent as the `agents` query lists it. */
export interface AgentInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  specRunnable: boolean;
  presetBakeableFields: string[];
}

/**
 * Agent runs (docs/agent-stream.md): starts and resumes them, runs each in the background
 * (a run does not belong to its subscriber), stores every event with its seq before
 * publishing it, and serves a run's log as replay-then-live. Domain code: no GraphQL.
 */
export class AgentService implements AgentHost {
  readonly providers: ProviderRegistry;
  readonly threads: ThreadStore;
  readonly skills: SkillStore;
  readonly responseFormats: ResponseFormatStore;
  readonly store: AgentRunStore;
  private readonly inflight = new InFlight<void>();

  constructor(private readonly deps: AgentServiceDeps) {
    this.providers = new ProviderRegistry(deps.env ?? process.env, () => deps.apps);
    this.threads = new ThreadStore(deps.db);
    this.skills = new SkillStore(deps.db);
    this.responseFormats = new ResponseFormatStore(deps.db);
    this.store = new AgentRunStore(deps.db, deps.runLog);
    deps.surface.addSource(() =>
      [...this.classes().values()].map((cls) => agentEntry(cls, (c, input, ctx) => invokeAsTool(this, c, input, ctx))),
    );
    // ask_caller parks like any pausing tool (docs/agent-stream.md §8); it is kept off the API.
    deps.surface.addSource(() => [askCallerEntry()]);
    if (!deps.builtins.agents.has(DEFAULT_AGENT)) deps.builtins.agent(ToolsAgent);
    if (!deps.builtins.plugins.has(BUILTIN_STORAGE)) deps.builtins.plugin(builtinStorage(deps.db, this.threads));
    // A cancel for a run this instance runs (agent-cancel.ts).
    deps.bus.listen("agentRunCancel", ({ runId }) => void this.cancel(runId));
    // A parked tool run of an agent ended here: its suspended agent run may continue.
    deps.dispatcher.onParkEnded((toolRun) => {
      if (toolRun.door !== "agent" || !toolRun.parentRunId) return;
      this.continueSuspended(toolRun.parentRunId).catch((e: Error) =>
        deps.log.warn("continuing a suspended agent run failed", { agentRunId: toolRun.parentRunId, error: e.message }),
      );
    });
  }

  get services(): AgentRunDeps {
    const d = this.deps;
    return {
      surface: d.surface,
      threads: this.threads,
      skills: this.skills,
      responseFormats: this.responseFormats,
      providers: this.providers,
      runs: d.runs,
      toolRuns: { awaitFinal: (id) => d.dispatcher.awaitFinal(id) },
      interactions: d.interactions ?? null,
      secrets: d.secrets,
      plugins: d.plugins,
    };
  }

  /** Registered agents by name: built-ins first, later handles overriding them. */
  classes(): Map<string, AgentClass> {
    return new Map(this.deps.apps.flatMap((a) => [...a.agents]));
  }

  list(): AgentInfo[] {
    return [...this.classes().values()]
      .map((c) => ({
        name: c.toolName,
        description: c.toolDescription,
        inputSchema: agentInputSchema(c),
        specRunnable: c.specRunnable,
        presetBakeableFields: Object.keys(c.ToolInput.shape).filter(
          (f) => bakeableFields(c) === "all" || c.presetBakeableFields.includes(f),
        ),
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Starts a run, or resumes the paused run of `options.threadId` when `options.resume` is
   * set. Every rejection happens here, before anything is stored (ApiError).
   */
  async start(req: StartRequest): Promise<StartedRun> {
    if (this.inflight.closing)
      throw new ApiError("UNAVAILABLE", "the server is shutting down; no new agent runs are accepted here", [], {
        retryable: true,
      });
    // A shutdown that begins while this start is admitted drains (or cancels) its run too.
    return this.inflight.admitting(this.admit(req));
  }

  private async admit(req: StartRequest): Promise<StartedRun> {
    const joined = await joinContinued(this, req);
    if (joined) return joined;
    let run: AdmittedRun;
    try {
      run = await admitStart(this, this.deps, req);
    } catch (e) {
      // The suspended run continued by itself while this resume was admitted: join it.
      const continued = e instanceof ApiError && e.code === "CONFLICT" ? await joinContinued(this, req) : null;
      if (continued) return continued;
      throw e;
    }
    withoutAgentSessionThread(() => launchRun(this, this.deps, this.inflight, run));
    return { runId: run.runId, threadId: run.threadId, agent: run.agent };
  }

  /**
   * A run the caller may join: one it started, or any for an ADMIN. Another caller's run
   * does not exist for it (NOT_FOUND), as every run door answers (auth/visibility.ts).
   */
  async open(runId: string, caller: Caller): Promise<AgentRunRecord> {
    const run = await this.store.get(runId);
    if (!run || !isOwnerOrAdmin(caller, run)) throw new ApiError("NOT_FOUND", `no agent run with id "${runId}"`);
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
      for await (const e of this.events(started.runId, started.afterSeq ?? 0, controller.signal)) {
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

  /**
   * Continues a SUSPENDED (or ASKED) run whose answers (or expiries) are all in, if this instance wins
   * its claim (docs/agent-stream.md §7.1); false when there was nothing to continue here.
   * Called when a parked tool run of an agent ends, and by the heartbeat's sweep.
   */
  continueSuspended(runId: string): Promise<boolean> {
    return this.inflight.admitting(continueSuspended(this, this.deps, this.inflight, runId));
  }

  /**
   * Continues every SUSPENDED or ASKED run whose answers are in (what a crash between an answer and its continuation
   * left); returns their ids.
   */
  async continueAnswered(): Promise<string[]> {
    const continued: string[] = [];
    for (const run of await this.store.suspended()) if (await this.continueSuspended(run.id)) continued.push(run.id);
    return continued;
  }

  /**
   * Aborts a run in flight on this instance: its tool calls in flight and its sub-agents
   * are cancelled with it, and it ends CANCELLED (docs/agent-stream.md §4.1). False when
   * this instance does not hold it.
   */
  cancel(runId: string): boolean {
    return this.inflight.abort(runId, new ToolError("the agent run was cancelled", { kind: "CANCELLED" }));
  }

  /**
   * Cancels a run the caller may see, on whichever instance runs it; resolves with it once it has ended
   * (agent-cancel.ts).
   */
  cancelFor(runId: string, caller: Caller): Promise<AgentRunRecord> {
    return cancelAgentRun(this, this.deps.bus, runId, caller);
  }

  /** Records messages in a thread without running (the named agent must keep thread memory). */
  async appendThreadMessages(
    agentName: string | null | undefined,
    threadId: string,
    messages: unknown,
    caller: Caller,
  ): Promise<ThreadView> {
    const checked = checkThreadMessages(messages);
    if (!threadId || threadId.length > 200)
      throw ApiError.badInput("threadId must be 1 to 200 characters", [
        { path: "/threadId", message: "must be 1 to 200 characters" },
      ]);
    const name = agentName ?? DEFAULT_AGENT;
    const cls = this.classes().get(name);
    if (!cls)
      throw ApiError.badInput(`no agent named "${name}"`, [{ path: "/agent", message: `no agent named "${name}"` }]);
    const existed = await checkThread(this, threadId, caller);
    const running = await this.store.runningOnThread(threadId);
    if (running)
      throw new ApiError(
        "CONFLICT",
        `thread "${threadId}" has a run in progress (${running.id}); append after it ends`,
      );
    try {
      checkThreadOwner(await this.threads.ensure(threadId, threadOwnerKey(caller)), caller);
      await new cls().appendThreadMessages(threadId, checked, { caller, services: this.services });
    } catch (e) {
      if (!existed) await this.threads.dropIfEmpty(threadId);
      if (e instanceof AgentCapabilityError)
        throw ApiError.badInput(e.message, [{ path: "/agent", message: e.message }]);
      throw e;
    }
    return (await this.threads.get(threadId))!;
  }

  /**
   * A thread, if the caller may read it (its owner, or an ADMIN); null for an absent one and for another caller's
   * alike.
   */
  async thread(threadId: string, caller: Caller): Promise<ThreadView | null> {
    const view = await this.threads.get(threadId);
    if (!view || !(await mayUseStoredThread(this, threadId, (await this.threads.owner(threadId)) ?? null, caller)))
      return null;
    return view;
  }

  /**
   * Fails runs left RUNNING by instances that are gone ("interrupted by restart") and
   * publishes their `run_failed` records. The runtime does this on its heartbeat
   * (`cluster/orphan-sweep.ts`); `liveIds` defaults to `liveInstances()`.
   */
  async recover(liveIds?: string[]): Promise<string[]> {
    return failAgentRuns(
      { agents: this, bus: this.deps.bus, log: this.deps.log },
      liveIds ?? (await this.deps.liveInstances?.()) ?? [],
    );
  }

  /**
   * Continues here the runs left RUNNING by instances not in `liveIds` that can go on (docs/agent-stream.md §4.3):
   * each claimed by compare-and-set on its owner (one claimant wins), then rebuilt from its checkpoint in the
   * background; returns the ids claimed here. What cannot go on is left to {@link failInterrupted}.
   */
  async continueInterrupted(liveIds: string[]): Promise<string[]> {
    if (this.inflight.closing) return [];
    const live = new Set([this.deps.instanceId, ...liveIds]);
    const claimed: string[] = [];
    for (const run of await this.store.orphans(live)) {
      if (!(await continuable(this, run)) || !(await this.store.claimOrphan(run, this.deps.instanceId))) continue;
      claimed.push(run.id);
      this.inflight
        .admitting(continueOrphan(this, this.deps, this.inflight, run))
        .catch((e: Error) =>
          this.deps.log.warn("continuing an interrupted agent run failed", { agentRunId: run.id, error: e.message }),
        );
    }
    return claimed;
  }

  /**
   * Fails the runs left RUNNING by instances not in `liveIds` (never this one's), each
   * with a `run_failed` record after its last stored event; returns those records, not
   * yet published. A run is failed once, whichever instances sweep at the same time.
   */
  async failInterrupted(liveIds: string[]): Promise<RunFailedRecord[]> {
    const live = new Set([this.deps.instanceId, ...liveIds]);
    const failed: RunFailedRecord[] = [];
    for (const run of await this.store.orphans(live)) {
      const entry: RunFailedRecord = {
        type: "run_failed",
        final: true,
        seq: (await this.store.lastSeq(run.id)) + 1,
        runId: run.id,
        kind: "INTERNAL",
        message: "interrupted by restart",
      };
      const { count } = await this.deps.db.agentRun.updateMany({
        where: { id: run.id, status: "RUNNING" },
        data: { status: "FAILED", final: entry as never, finishedAt: new Date() },
      });
      if (!count) continue;
      await this.store.appendEvent(entry as never);
      failed.push(entry);
    }
    return failed;
  }

  /**
   * Stops accepting runs, waits up to `graceMs` for those in flight, then cancels the rest (their tool calls with
   * them).
   */
  async close(graceMs: number): Promise<void> {
    await this.inflight.drain(graceMs, new ToolError("cancelled by server shutdown", { kind: "CANCELLED" }));
  }

  get runningCount(): number {
    return this.inflight.size;
  }

  /** The ids of the agent runs executing on this instance. */
  runningIds(): string[] {
    return this.inflight.ids();
  }

  /**
   * Stops a run executing here that another instance already failed (`cluster/fencing.ts`); nothing more of it is
   * stored.
   */
  fence(runId: string, reason: string): boolean {
    return this.inflight.abort(runId, new Error(reason));
  }
}
