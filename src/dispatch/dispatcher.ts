import { checkDispatchBounds } from "../auth/dispatch-bounds.ts";
import type { Caller } from "../auth/roles.ts";
import { inScope, outOfScope } from "../auth/key-scope.ts";
import { isRedacted, mayRun, REDACTED } from "../auth/tiers.ts";
import { requireVisibleRun } from "../auth/visibility.ts";
import { ToolError, type ErrorKind } from "../errors.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import { TOO_DEEP, tooDeepAt, tooDeepMessage } from "../tools/json-depth.ts";
import { writeOnlyStrings } from "../tools/write-only.ts";
import { InFlight } from "../runlog/in-flight.ts";
import { invalidInput, notFound, notRun, requestedRun, validateInput } from "./admission.ts";
import { refuseUnstorable, replayOf } from "./run-replay.ts";
import { askHolder } from "./run-cancel.ts";
import { cancelQueued, executeQueued, handBack, published, queued, queueRun, type Launcher } from "./run-queued.ts";
import { settleOrphans, type OrphanOutcome } from "./run-redrive.ts";
import { retryUnknown, settleUnknown, type SettledStatus } from "./run-operator.ts";
import { endParked, resume } from "./park-resume.ts";
import { execute } from "./run-execute.ts";
import type { RunSteps } from "./run-steps.ts";
import { appliedPolicy } from "../retry/applied-policy.ts";
import { resolveEntry, resolveRun } from "./resolve-entry.ts";
import { isFinal, seesCuratedSurface, type RunRecord } from "./run-record.ts";
import type { DispatchDeps, RunOutcome, RunRequest } from "./request.ts";
import { both, RunSettle } from "./run-settle.ts";
import { awaitStored, boundedRead, idempotencyScope, keptFull, LocalScopes, untilStored } from "./run-follow.ts";
import type { ReadBound } from "./run-follow.ts";
import { keepLostOutcome, keepUnsureStart } from "./run-salvage.ts";
import { followParent } from "./parent-signal.ts";
import { Followers } from "./run-followers.ts";
import { admitLimits, queuedTicket, refusalDetails, releaseTicket, type LimitTicket } from "./run-limits.ts";
import { followingWait, markWaiting, waitThenLaunch } from "./run-waiting.ts";
import type { RunTrace } from "./observe.ts";

/** How {@link Dispatcher.launch} executes a stored run. */
interface Launch {
  req: Pick<RunRequest, "caller" | "timeoutSeconds" | "signal" | "onProgress" | "idempotencyKey" | "toolCallId">;
  redact: boolean;
  trace?: RunTrace;
  resumed?: boolean;
  limits?: LimitTicket;
}

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
  /** The re-issued keys waiting here for a first run's outcome; a stop answers them. */
  private readonly followers = new Followers();
  /** What executing a queued run needs of this dispatcher. */
  private readonly launcher: Launcher;

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
    this.unlistenCancel = deps.bus.listen("runCancel", ({ runId }) => this.cancelHeld(runId));
    this.launcher = {
      steps: this.steps,
      moves: deps.moves,
      closing: () => this.inflight.closing,
      resolve: (req) => resolveEntry(this.deps, req),
      launch: (entry, run, value, req, limits) =>
        this.launch(entry, run, value, { req, redact: false, limits: limits ?? queuedTicket(this.deps, entry) }).done,
    };
  }

  /** Executes QUEUED run `runId` here if it wins the claim (run-lifecycle §11.2); resolves once it settled here. */
  executeQueued(runId: string): Promise<void> {
    return executeQueued(this.launcher, runId);
  }

  /** The sweep's part (run-lifecycle §11.4): runs of instances not in `liveIds`, re-driven or OUTCOME_UNKNOWN. */
  async settleOrphans(liveIds: string[], whyGone: (instanceId: string) => string): Promise<OrphanOutcome> {
    const outcome = await settleOrphans(this.deps.moves, liveIds, whyGone);
    for (const id of outcome.queued) await queueRun(this.deps, id);
    return outcome;
  }

  /** An operator's retry of a run whose outcome is unknown (docs/run-lifecycle.md §11.5): queued again. */
  async retryUnknown(caller: Caller, runId: string): Promise<RunRecord> {
    return published(this.deps, await retryUnknown(this.deps.moves, caller, runId), true);
  }

  /** An operator's settle of a run whose outcome is unknown (docs/run-lifecycle.md §11.5). */
  async settleUnknown(caller: Caller, runId: string, status: SettledStatus, message: string | null) {
    return published(this.deps, await settleUnknown(this.deps.moves, caller, runId, status, message), false);
  }

  /** Runs a tool; resolves with the stored (redacted where the tier says so) record. */
  async run(req: RunRequest): Promise<RunRecord> {
    return (await this.runDetailed(req)).run;
  }

  /**
   * Runs a tool; also returns the unredacted output for in-process consumers. Admission (docs/run-lifecycle.md §2,
   * steps 1–5) is here; {@link execute} runs and settles it. Options out of bounds (`auth/dispatch-bounds.ts`) are
   * refused on every door before any run exists: BAD_USER_INPUT, thrown; so is a dispatch of an API door that admission
   * control sheds (docs/flow-control.md §5): UNAVAILABLE.
   */
  async runDetailed(req: RunRequest): Promise<RunOutcome> {
    checkDispatchBounds(req);
    const { admission } = this.deps;
    if (req.connection?.aborted) throw notRun(this.deps.log, req);
    if (admission && seesCuratedSurface(req.door)) {
      const leave = admission.enter();
      return this.runObserved(req).finally(leave);
    }
    return this.runObserved(req);
  }

  private async runObserved(req: RunRequest): Promise<RunOutcome> {
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

  /** Runs `check`; when it throws, what the run learned (its declared secrets) is dropped first: no run follows. */
  private orForget(runId: string, check: () => void): void {
    try {
      check();
    } catch (e) {
      this.settle.forget(runId);
      throw e;
    }
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

    const resolved = await resolveRun(this.deps, req);
    if (!resolved) return this.settle.reject(base, "NOT_FOUND", notFound(req));
    const { entry, policy, limits } = resolved;
    const redact = isRedacted(entry.tier);
    base.tier = entry.tier;
    // Declared secrets (`writeOnly` inputs) are scrubbed from the very first write, a refusal's too.
    const declared = writeOnlyStrings(entry.inputSchema, req.input);
    if (req.secrets) this.settle.inherit(base.id, req.secrets);
    this.settle.declare(base.id, declared);
    if (redact) base.input = REDACTED;
    else if (req.storedInput !== undefined && deep === null) base.input = req.storedInput;
    if (!mayRun(req.caller.role, entry.tier))
      return this.settle.reject(
        base,
        "PERMISSION_DENIED",
        `role ${req.caller.role} may not run ${entry.tier}-tier tool "${entry.name}"`,
      );
    if (!inScope(req.caller, entry.name))
      return this.settle.reject(base, "PERMISSION_DENIED", outOfScope(req.caller, entry.name));

    const prepared = validateInput(entry, req.input);
    if (!prepared.ok)
      return this.settle.reject(base, "INVALID_INPUT", ...invalidInput(entry.name, prepared.issues, redact));

    base.retryPolicy = appliedPolicy(policy);
    const replay = replayOf(req, base, redact, declared, this.settle.snapshot(base, redact).input);
    if (req.background) this.orForget(base.id, () => refuseUnstorable(entry.name, replay, redact));

    const scope = idempotencyScope(req, entry.name);
    // A re-issued key follows the first run (a background one answers it as it is); what this one learned is dropped.
    const followFirst = (id: string) =>
      req.background ? this.firstAsIs(base, id) : (this.settle.forget(base.id), this.follow(req, id));
    if (scope) {
      const first = this.scopes.get(scope) ?? (await boundedRead(() => this.deps.runs.byScope(scope)))?.id;
      if (first) return followFirst(first);
    }
    if (req.connection?.aborted) throw (this.settle.forget(base.id), notRun(this.deps.log, req));
    const ticket = await admitLimits(this.deps.flow, limits, req);
    if (ticket && "kind" in ticket)
      return this.settle.reject(base, ticket.kind, ticket.message, refusalDetails(ticket));
    req.onRun?.(base.id);
    if (req.background) base.status = "QUEUED";
    if (ticket?.waitingFor) markWaiting(base, replay, ticket.waitingFor);
    const started = await this.deps.runs
      .start(this.settle.snapshot(base, redact), scope, this.deps.instanceId, replay)
      .catch((e: unknown) => {
        if (!req.background) keepUnsureStart(this.steps, base, redact, e);
        else this.settle.forget(base.id);
        releaseTicket(ticket, true);
        throw e;
      });
    if (!started)
      return releaseTicket(ticket, true) ?? followFirst((await boundedRead(() => this.deps.runs.byScope(scope!)))!.id);
    this.settle.publish(started);
    if (req.background) return queued(this.steps, base);
    const limited = ticket ?? undefined;
    const launch = (run: RunRecord, waited?: AbortSignal) =>
      this.launch(entry, run, prepared.value, { req: followingWait(req, waited), redact, trace, limits: limited });
    const launched = ticket?.waitingFor
      ? waitThenLaunch(this.steps, { run: base, ticket, redact, req }, launch)
      : launch(base);
    if (scope) this.scopes.hold(scope, base.id, launched.held);
    return launched.done;
  }

  /**
   * Executes a run stored RUNNING (admitted here, or claimed from the queue): its retry loop and settle, held in flight
   * here until its outcome is stored.
   */
  private launch(
    entry: SurfaceEntry,
    base: RunRecord,
    value: unknown,
    { req, redact, trace, resumed, limits }: Launch,
  ): { done: Promise<RunOutcome>; held: Promise<unknown> } {
    const controller = new AbortController();
    const unfollow = followParent(controller, req.signal);
    const done = execute(this.steps, entry, base, (ctx) => entry.invoke(value, ctx), {
      caller: req.caller,
      timeoutSeconds: req.timeoutSeconds,
      controller,
      redact,
      retryPolicy: base.retryPolicy,
      trace,
      onProgress: req.onProgress,
      idempotencyKey: req.idempotencyKey,
      toolCallId: req.toolCallId,
      resumed,
      limits,
    });
    // Before `add`: a run whose execution threw is held until its kept outcome is stored.
    done.catch((e: unknown) => keepLostOutcome(this.steps, base, redact, e));
    const held = this.inflight.add(base.id, controller, done, untilStored(this.settle, base.id));
    return { done: done.finally(() => (unfollow(), releaseTicket(limits))), held };
  }

  /** A re-issued background request: the first run as it is now. */
  private async firstAsIs(base: RunRecord, firstId: string): Promise<RunOutcome> {
    this.settle.forget(base.id);
    return both((await boundedRead(() => this.deps.runs.get(firstId)))!);
  }

  /**
   * Aborts a RUNNING run (on whichever instance holds it); no retry follows. Resolves with the run once it has ended; a
   * run that already ended is returned unchanged.
   */
  async cancel(runId: string): Promise<RunRecord | null> {
    const run = await this.deps.runs.get(runId);
    if (!run) return null;
    if (run.status === "PARKED")
      return (await this.endParked(runId, "CANCELLED", "the run was cancelled while parked")) ?? this.awaitFinal(runId);
    if (run.status === "QUEUED") {
      const ended = await cancelQueued(this.deps.moves, runId);
      // A synchronous dispatch's run waiting here for its slots stops waiting at once.
      if (ended) return (this.cancelHeld(runId), this.settle.publish(ended), ended.run);
      return this.cancel(runId);
    }
    if (isFinal(run.status)) return run;
    if (this.cancelHeld(runId)) return this.awaitFinal(runId);
    const ended = await askHolder(this.deps, runId, (id) => this.awaitFinal(id));
    return ended === "again" ? this.cancel(runId) : ended;
  }

  /** Cancels a run for a caller, as every door does: one it may see (security-model §2), else NOT_FOUND; see cancel. */
  async cancelFor(caller: Caller, runId: string): Promise<RunRecord> {
    const run = requireVisibleRun(caller, await this.deps.runs.get(runId), runId);
    return (await this.cancel(run.id)) ?? run;
  }

  /** Ends a PARKED run without resuming it (cancelled, or an interaction expired); null when it was not parked. */
  async endParked(
    runId: string,
    status: "CANCELLED" | "FAILED",
    message: string,
    kind: ErrorKind = status === "CANCELLED" ? "CANCELLED" : "TIMEOUT",
  ): Promise<RunRecord | null> {
    return endParked(this.steps, runId, status, message, kind);
  }

  /**
   * Resumes a PARKED run whose interactions are all answered, on this instance: the entry's `resume` (default: the
   * answer itself) runs through the same settle path; if another instance already resumes it, waits for its outcome.
   */
  async resume(runId: string): Promise<RunOutcome> {
    return resume(this.steps, runId);
  }

  /**
   * Calls `listener` with each parked run this instance ends: resumed (to an outcome, or parked again), expired or
   * cancelled. Agent runs suspended on the run resume from it (docs/agent-stream.md §7). Returns the unsubscribe.
   */
  onParkEnded(listener: (run: RunRecord) => void): () => void {
    this.parkListeners.add(listener);
    return () => this.parkListeners.delete(listener);
  }

  private parkEnded(run: RunRecord): void {
    for (const l of this.parkListeners) l(run);
  }

  /**
   * Resolves with the run once it is no longer RUNNING (any instance), or with the outcome this instance holds for it
   * while the database has not taken it. `read` bounds each read of the run (a re-issued key: `run-follow.ts`).
   */
  async awaitFinal(runId: string, read: ReadBound = (r) => r(), signal?: AbortSignal): Promise<RunRecord> {
    const kept = this.settle.pending.get(runId);
    if (kept) return kept.run;
    const local = this.inflight.get(runId);
    if (local) return (await local.done).run;
    return awaitStored(this.deps, runId, read, signal);
  }

  /**
   * Stops accepting runs, waits up to `graceMs` for those in flight, then cancels the rest; outcomes the database has
   * not taken yet are written again until then, and those still not stored are logged (their runs are failed by
   * another instance's sweep, or at the next start).
   * `agents`: the agent runs' drain, same deadline; until it settles, their tool calls (door "agent", with the run's
   * signal) are admitted, and waited for. Then the re-issued keys still waiting here are answered to send again.
   */
  async drain(graceMs: number, agents?: Promise<unknown>): Promise<void> {
    const flushed = this.settle.pending.closeBy(Date.now() + graceMs);
    const shutdown = new ToolError("cancelled by server shutdown", { kind: "CANCELLED" });
    const stop = (id: string) => void this.inflight.abort(id, shutdown);
    await this.inflight.drain(graceMs, shutdown, agents, (ids) => handBack(this.deps, ids, stop));
    await flushed;
    this.followers.stop();
    const lost = this.settle.pending.abandoned;
    const message =
      "run outcomes could not be stored before shutdown; these runs stay RUNNING until a sweep fails them";
    if (lost.length) this.deps.log.error(message, { runIds: lost });
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
   * Stops a run executing here whose outcome another instance already stored (it was failed while this instance looked
   * gone): its attempt is aborted with `reason`, and nothing it does after is recorded (the store keeps the first
   * outcome). False when this instance does not hold it.
   */
  fence(runId: string, reason: string): boolean {
    return this.inflight.abort(runId, new ToolError(reason, { kind: "CANCELLED" }));
  }

  /** A re-issued idempotency key: the first run's outcome, once it has one. */
  private async follow(req: RunRequest, runId: string): Promise<RunOutcome> {
    req.onRun?.(runId);
    return both(await this.followers.follow((signal) => this.awaitFinal(runId, boundedRead, signal)));
  }

  /** Aborts run `runId` if it executes here, as `cancelRun` does (the attempt ends CANCELLED); false otherwise. */
  cancelHeld(runId: string): boolean {
    return this.inflight.abort(runId, new ToolError("the run was cancelled", { kind: "CANCELLED" }));
  }
}
