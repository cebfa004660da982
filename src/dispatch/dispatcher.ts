import { checkDispatchBounds } from "../auth/dispatch-bounds.ts";
import type { Caller } from "../auth/roles.ts";
import { isRedacted, mayRun, REDACTED } from "../auth/tiers.ts";
import { requireVisibleRun } from "../auth/visibility.ts";
import { describeIssues, ToolError, type ErrorKind, type Issue } from "../errors.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import { unstorableIssues } from "../db/storable.ts";
import { prepareInput } from "../registry/entries/prepare-input.ts";
import { bakedOverrides } from "../registry/entries/preset-entry.ts";
import { TOO_DEEP, tooDeepAt, tooDeepMessage } from "../tools/json-depth.ts";
import { writeOnlyStrings } from "../tools/write-only.ts";
import { InFlight } from "../runlog/in-flight.ts";
import { endParked, resume } from "./park-resume.ts";
import { execute } from "./run-execute.ts";
import type { RunSteps } from "./run-steps.ts";
import { appliedPolicy } from "../retry/applied-policy.ts";
import { isFinal, newRun, seesCuratedSurface, type RunRecord } from "./run-record.ts";
import type { DispatchDeps, RunOutcome, RunRequest } from "./request.ts";
import { both, RunSettle } from "./run-settle.ts";
import { boundedRead, keptFull, LocalScopes, untilStored } from "./run-follow.ts";
import { keepLostOutcome, keepUnsureStart } from "./run-salvage.ts";
import { followParent } from "./parent-signal.ts";
import type { RunTrace } from "./observe.ts";

/**
 * THE chokepoint. Every door (GraphQL, CLI, agent, extensions, MCP) runs tools through
 * {@link Dispatcher.run}; no other code invokes a body. Pipeline (docs/run-lifecycle.md):
 * resolve → authorize → validate → idempotency → persist+publish RUN_STARTED →
 * retry loop (timeout + AbortSignal per attempt) → output validation → persist+publish.
 * Admission is here; the steps after it are `run-execute.ts` (retry loop), `run-settle.ts`
 * (output validation, persist+publish), `run-park.ts` and `park-resume.ts`. Expected failures are
 * data: `run` resolves with a FAILED/CANCELLED record, never throws for them.
 */
export class Dispatcher {
  private readonly inflight = new InFlight<RunOutcome>();
  private readonly settle: RunSettle;
  /** What execute, park and resume share with this dispatcher. */
  private readonly steps: RunSteps;
  private readonly unlistenCancel: () => void;
  private readonly parkListeners = new Set<(run: RunRecord) => void>();
  /** The idempotency scopes of the runs this instance works on. */
  private readonly scopes = new LocalScopes();

  constructor(private readonly deps: DispatchDeps) {
    this.settle = new RunSettle(deps);
    this.steps = {
      deps,
      settle: this.settle,
      inflight: this.inflight,
      runDetailed: (req) => this.runDetailed(req),
      awaitFinal: (runId) => this.awaitFinal(runId),
      resume: (runId) => this.resume(runId),
      parkEnded: (run) => this.parkEnded(run),
    };
    this.unlistenCancel = deps.bus.listen("runCancel", ({ runId }) => this.abortLocal(runId));
  }

  /** Runs a tool; resolves with the stored (redacted where the tier says so) record. */
  async run(req: RunRequest): Promise<RunRecord> {
    return (await this.runDetailed(req)).run;
  }

  /**
   * Runs a tool; also returns the unredacted output for in-process consumers. Admission
   * (docs/run-lifecycle.md §2, steps 1–5) is here; {@link execute} runs and settles it.
   * Options out of bounds (`auth/dispatch-bounds.ts`) are refused on every door before any
   * run exists: BAD_USER_INPUT, thrown.
   */
  async runDetailed(req: RunRequest): Promise<RunOutcome> {
    checkDispatchBounds(req);
    const { observer, tracer } = this.deps;
    if (!observer && !tracer) return this.admit(req);
    const started = performance.now();
    const trace = tracer?.startRun(req);
    let outcome: RunOutcome;
    try {
      outcome = await this.admit(req, trace);
    } catch (e) {
      trace?.fail(e);
      throw e;
    }
    trace?.end(outcome.run);
    observer?.dispatched(outcome.run, req.door, (performance.now() - started) / 1000);
    return outcome;
  }

  private async admit(req: RunRequest, trace?: RunTrace): Promise<RunOutcome> {
    // First, before anything recursive (scrubbing, validation, storage) reads the input.
    const deep = tooDeepAt(req.input);
    const base = requestedRun(req, deep === null ? req.input : TOO_DEEP);
    if (deep !== null)
      return this.settle.reject(base, "INVALID_INPUT", `invalid input for "${req.tool}": ${tooDeepMessage(deep)}`, {
        issues: [{ path: deep, message: tooDeepMessage(deep) }],
      });
    if (this.inflight.closing && !(req.door === "agent" && req.signal))
      return this.settle.reject(base, "UNAVAILABLE", "the server is shutting down; no new runs are accepted");
    if (this.settle.pending.full) throw keptFull();

    const entry = await this.resolve(req);
    if (!entry) return this.settle.reject(base, "NOT_FOUND", notFound(req));
    const redact = isRedacted(entry.tier);
    base.tier = entry.tier;
    // Declared secrets (`writeOnly` inputs) are scrubbed from the very first write, a refusal's too.
    this.settle.declare(base.id, writeOnlyStrings(entry.inputSchema, req.input));
    if (redact) base.input = REDACTED;
    else if (req.storedInput !== undefined && deep === null) base.input = req.storedInput;
    if (!mayRun(req.caller.role, entry.tier))
      return this.settle.reject(
        base,
        "PERMISSION_DENIED",
        `role ${req.caller.role} may not run ${entry.tier}-tier tool "${entry.name}"`,
      );

    const prepared = this.validateInput(entry, req.input);
    if (!prepared.ok)
      return this.settle.reject(base, "INVALID_INPUT", ...invalidInput(entry.name, prepared.issues, redact));

    base.retryPolicy = appliedPolicy(this.deps.surface.policyFor(entry));

    const scope = req.idempotencyKey
      ? `${req.caller.keyId ?? `anonymous:${req.caller.role}`}\u0000${entry.name}\u0000${req.idempotencyKey}`
      : null;
    // A re-issued key follows the first run; what this one learned (declared secrets) is dropped.
    const followFirst = (id: string) => (this.settle.forget(base.id), this.follow(req, id));
    if (scope) {
      const first = this.scopes.get(scope) ?? (await boundedRead(() => this.deps.runs.byScope(scope)))?.id;
      if (first) return followFirst(first);
    }
    req.onRun?.(base.id);
    const started = await this.deps.runs
      .start(this.settle.snapshot(base, redact), scope, this.deps.instanceId)
      .catch((e: unknown) => {
        keepUnsureStart(this.steps, base, redact, e);
        throw e;
      });
    if (!started) return followFirst((await boundedRead(() => this.deps.runs.byScope(scope!)))!.id);
    this.settle.publish(started);

    const controller = new AbortController();
    const unfollow = followParent(controller, req.signal);
    const done = execute(this.steps, entry, base, (ctx) => entry.invoke(prepared.value, ctx), {
      caller: req.caller,
      timeoutSeconds: req.timeoutSeconds,
      controller,
      redact,
      retryPolicy: base.retryPolicy,
      trace,
      onProgress: req.onProgress,
      idempotencyKey: req.idempotencyKey,
      toolCallId: req.toolCallId,
    });
    // Before `add`: a run whose execution threw is held until its kept outcome is stored.
    done.catch((e: unknown) => keepLostOutcome(this.steps, base, redact, e));
    const held = this.inflight.add(base.id, controller, done, untilStored(this.settle, base.id));
    if (scope) this.scopes.hold(scope, base.id, held);
    try {
      return await done;
    } finally {
      unfollow();
    }
  }

  /**
   * The entry a request runs: its live tool, else its name on the surface its door sees (the API doors the curated
   * surface, in-process doors every registered name).
   */
  private async resolve(req: RunRequest): Promise<SurfaceEntry | undefined> {
    const curated = seesCuratedSurface(req.door);
    const lookup = (name: string) => (curated ? this.deps.surface.resolve(name) : this.deps.surface.base(name));
    // A name created on another instance a moment ago may not have reached this one yet.
    return (
      req.live ?? lookup(req.tool) ?? ((await this.deps.refresh?.().catch(() => false)) ? lookup(req.tool) : undefined)
    );
  }

  /**
   * Aborts a RUNNING run (on whichever instance holds it); no retry follows. Resolves
   * with the run once it has ended; a run that already ended is returned unchanged.
   */
  async cancel(runId: string): Promise<RunRecord | null> {
    const run = await this.deps.runs.get(runId);
    if (!run) return null;
    if (run.status === "PARKED")
      return (await this.endParked(runId, "CANCELLED", "the run was cancelled while parked")) ?? this.awaitFinal(runId);
    if (isFinal(run.status)) return run;
    if (this.abortLocal(runId)) return this.awaitFinal(runId);
    // Redis delivers at most once: the request is repeated until the owner ends the run
    // (or is found gone and its run failed), so one lost message cannot hang the caller.
    const ask = () => this.deps.bus.publish("runCancel", { runId });
    ask();
    const again = setInterval(ask, 1000);
    try {
      return await this.awaitFinal(runId);
    } finally {
      clearInterval(again);
    }
  }

  /**
   * Cancels a run on a caller's behalf, as every door does: only a run the caller may see
   * (docs/security-model.md §2), NOT_FOUND otherwise; then as {@link cancel}.
   */
  async cancelFor(caller: Caller, runId: string): Promise<RunRecord> {
    const run = requireVisibleRun(caller, await this.deps.runs.get(runId), runId);
    return (await this.cancel(run.id)) ?? run;
  }

  /**
   * Ends a PARKED run without resuming it (cancelled, or an interaction expired); null
   * when it was no longer parked.
   */
  async endParked(
    runId: string,
    status: "CANCELLED" | "FAILED",
    message: string,
    kind: ErrorKind = status === "CANCELLED" ? "CANCELLED" : "TIMEOUT",
  ): Promise<RunRecord | null> {
    return endParked(this.steps, runId, status, message, kind);
  }

  /**
   * Resumes a PARKED run whose interactions are all answered, on this instance: the
   * entry's `resume` (default: the answer itself) runs through the same settle path.
   * If another instance is already resuming it, waits for that outcome.
   */
  async resume(runId: string): Promise<RunOutcome> {
    return resume(this.steps, runId);
  }

  /**
   * Calls `listener` with each parked run this instance ends: resumed (to an outcome, or
   * parked again), expired or cancelled. Agent runs suspended on the run resume from it
   * (docs/agent-stream.md §7). Returns the unsubscribe.
   */
  onParkEnded(listener: (run: RunRecord) => void): () => void {
    this.parkListeners.add(listener);
    return () => this.parkListeners.delete(listener);
  }

  private parkEnded(run: RunRecord): void {
    for (const l of this.parkListeners) l(run);
  }

  /**
   * Resolves with the run once it is no longer RUNNING (any instance), or with the outcome
   * this instance holds for it while the database has not taken it. `read` bounds each
   * read of the run (a re-issued key: `run-follow.ts`).
   */
  async awaitFinal(runId: string, read: <T>(r: () => Promise<T>) => Promise<T> = (r) => r()): Promise<RunRecord> {
    const kept = this.settle.pending.get(runId);
    if (kept) return kept.run;
    const local = this.inflight.get(runId);
    if (local) return (await local.done).run;
    let wake: () => void = () => {};
    const unlisten = this.deps.bus.listen("runEvent", (e) => {
      if (e.runId === runId && (e.type === "RUN_PARKED" || e.type === "RUN_FINISHED")) wake();
    });
    try {
      for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
        const run = await read(() => this.deps.runs.get(runId));
        if (!run) throw new Error(`run ${runId} vanished`);
        if (isFinal(run.status)) return run;
        // The bus wakes us early; the poll covers a Redis outage.
        await new Promise<void>((r) => {
          const t = setTimeout(r, delay);
          wake = () => {
            clearTimeout(t);
            r();
          };
        });
      }
    } finally {
      unlisten();
    }
  }

  /**
   * Stops accepting runs, waits up to `graceMs` for those in flight, then cancels the rest;
   * outcomes the database has not taken yet are written again until then, and those still
   * not stored are logged (their runs are failed by another instance's sweep, or at the next start).
   * `agents`: the agent runs' drain, same deadline; until it settles, their tool calls (door "agent", with the run's
   * signal) are admitted, and waited for.
   */
  async drain(graceMs: number, agents?: Promise<unknown>): Promise<void> {
    const flushed = this.settle.pending.closeBy(Date.now() + graceMs);
    await this.inflight.drain(graceMs, new ToolError("cancelled by server shutdown", { kind: "CANCELLED" }), agents);
    await flushed;
    const lost = this.settle.pending.abandoned;
    if (lost.length)
      this.deps.log.error(
        "run outcomes could not be stored before shutdown; these runs stay RUNNING until a sweep fails them",
        { runIds: lost },
      );
    this.unlistenCancel();
  }

  get runningCount(): number {
    return this.inflight.size;
  }

  /** How many run outcomes computed here the database has not taken yet (kept and retried). */
  get unstoredOutcomes(): number {
    return this.settle.pending.size;
  }

  /** The ids of the runs executing on this instance. */
  runningIds(): string[] {
    return this.inflight.ids();
  }

  /**
   * Stops a run executing here whose outcome another instance already stored (it was
   * failed while this instance looked gone): its attempt is aborted with `reason`, and
   * nothing it does after is recorded (the store keeps the first outcome). False when
   * this instance does not hold it.
   */
  fence(runId: string, reason: string): boolean {
    return this.inflight.abort(runId, new ToolError(reason, { kind: "CANCELLED" }));
  }

  /** A re-issued idempotency key: the first run's outcome, once it has one. */
  private async follow(req: RunRequest, runId: string): Promise<RunOutcome> {
    req.onRun?.(runId);
    return both(await this.awaitFinal(runId, boundedRead));
  }

  private abortLocal(runId: string): boolean {
    return this.inflight.abort(runId, new ToolError("the run was cancelled", { kind: "CANCELLED" }));
  }

  private validateInput(
    entry: SurfaceEntry,
    input: unknown,
  ): { ok: true; value: unknown } | { ok: false; issues: Issue[] } {
    if (typeof input !== "object" || input === null || Array.isArray(input))
      return { ok: false, issues: [{ path: "", message: "must be an object" }] };
    const unstorable = unstorableIssues(input);
    if (unstorable.length) return { ok: false, issues: unstorable };
    const overridden = bakedOverrides(
      input,
      entry.bakedKeys ?? [],
      `is baked by preset "${entry.name}" and cannot be overridden`,
    );
    if (overridden.length) return { ok: false, issues: overridden };
    return prepareInput(entry, input as Record<string, unknown>);
  }
}

/** The run a request starts as, before anything about its entry is known. */
function requestedRun(req: RunRequest, input: unknown): RunRecord {
  const { caller } = req;
  return newRun({
    tool: req.tool,
    input,
    door: req.door,
    callerRole: caller.role,
    callerKey: caller.keyName,
    callerKeyId: caller.keyId,
    parentRunId: req.parentRunId,
  });
}

/** Why no entry runs a request: its name is not on the surface its door sees. */
function notFound(req: RunRequest): string {
  return seesCuratedSurface(req.door)
    ? `no tool named "${req.tool}" on the surface`
    : `no tool named "${req.tool}" is registered`;
}

/** The message and details of a refused input; a secret-tier entry's issues name only their paths. */
function invalidInput(name: string, issues: Issue[], redact: boolean): [string, { issues: Issue[] }] {
  return [
    `invalid input for "${name}": ${redact ? "see issues" : describeIssues(issues)}`,
    { issues: redact ? issues.map((i) => ({ path: i.path, message: "is invalid" })) : issues },
  ];
}
