import type { Caller } from "../auth/roles.ts";
import { isRedacted, mayRun, REDACTED } from "../auth/tiers.ts";
import type { Bus } from "../events/bus.ts";
import { describeIssues, ToolError, type ErrorKind, type Issue } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import type { Surface } from "../registry/surface.ts";
import { unstorableIssues } from "../db/storable.ts";
import { validate } from "../tools/json-schema.ts";
import type { Secrets, SecretScope } from "../secrets/secrets.ts";
import { TOO_DEEP, tooDeepAt, tooDeepMessage } from "../tools/json-depth.ts";
import { normalizeResult, type ToolResult } from "../tools/result.ts";
import type { ToolContext } from "../tools/definition.ts";
import { runWithRetry } from "./retry-loop.ts";
import { isPark, type Park } from "../interactions/park.ts";
import type { InteractionStore } from "../interactions/interaction-store.ts";
import { isFinal, newRun, type AppliedPolicy, type Door, type RunEventRecord, type RunRecord } from "./run-record.ts";
import type { RunStore } from "./run-store.ts";

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
  /** The parent attempt's signal (a child run through `ctx.runTool`): when it aborts, this run is cancelled too. */
  signal?: AbortSignal;
}

/** What the chokepoint needs from the runtime. */
export interface DispatchDeps {
  surface: Surface;
  runs: RunStore;
  bus: Bus;
  log: Logger;
  /** The runtime's secrets: `ctx.redact` adds to them; every record is scrubbed of them. */
  secrets: Secrets;
  instanceId: string;
  interactions: InteractionStore;
  store: import("../db/expiring-store.ts").ExpiringStore;
}

interface InFlight {
  controller: AbortController;
  done: Promise<RunOutcome>;
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

/**
 * THE chokepoint. Every door (GraphQL, CLI, agent, extensions, MCP) runs tools through
 * {@link Dispatcher.run}; no other code invokes a body. Pipeline (docs/run-lifecycle.md):
 * resolve → authorize → validate → idempotency → persist+publish RUN_STARTED →
 * retry loop (timeout + AbortSignal per attempt) → output validation → persist+publish.
 * Expected failures are data: `run` resolves with a FAILED/CANCELLED record, never throws
 * for them.
 */
export class Dispatcher {
  private readonly inflight = new Map<string, InFlight>();
  /** Per run: a scope of the runtime's secrets holding what its secret-tier child runs returned. */
  private readonly learned = new Map<string, SecretScope>();
  private closing = false;
  private readonly unlistenCancel: () => void;

  constructor(private readonly deps: DispatchDeps) {
    this.unlistenCancel = deps.bus.listen("runCancel", ({ runId }) => this.abortLocal(runId));
  }

  /** Runs a tool; resolves with the stored (redacted where the tier says so) record. */
  async run(req: RunRequest): Promise<RunRecord> {
    return (await this.runDetailed(req)).run;
  }

  /** Runs a tool; also returns the unredacted output for in-process consumers. */
  async runDetailed(req: RunRequest): Promise<RunOutcome> {
    // First, before anything recursive (scrubbing, validation, storage) reads the input.
    const deep = tooDeepAt(req.input);
    const base = newRun({ tool: req.tool, input: deep === null ? req.input : TOO_DEEP, door: req.door, callerRole: req.caller.role, callerKey: req.caller.keyName, callerKeyId: req.caller.keyId, parentRunId: req.parentRunId });
    if (deep !== null) return this.reject(base, "INVALID_INPUT", `invalid input for "${req.tool}": ${tooDeepMessage(deep)}`, { issues: [{ path: deep, message: tooDeepMessage(deep) }] });
    if (this.closing) return this.reject(base, "UNAVAILABLE", "the server is shutting down; no new runs are accepted");

    const entry = this.deps.surface.resolve(req.tool);
    if (!entry) return this.reject(base, "NOT_FOUND", `no tool named "${req.tool}" on the surface`);
    const redact = isRedacted(entry.tier);
    base.tier = entry.tier;
    if (redact) base.input = REDACTED;
    if (!mayRun(req.caller.role, entry.tier))
      return this.reject(base, "PERMISSION_DENIED", `role ${req.caller.role} may not run ${entry.tier}-tier tool "${entry.name}"`);

    const prepared = this.validateInput(entry, req.input);
    if (!prepared.ok)
      return this.reject(base, "INVALID_INPUT", `invalid input for "${entry.name}": ${redact ? "see issues" : describeIssues(prepared.issues)}`, {
        issues: redact ? prepared.issues.map((i) => ({ path: i.path, message: "is invalid" })) : prepared.issues,
      });

    const effective = this.deps.surface.policyFor(entry);
    base.policy = effective ? ({ ...effective.policy, declaredOn: effective.declaredOn } as AppliedPolicy) : null;

    const scope = req.idempotencyKey ? `${req.caller.keyId ?? `anonymous:${req.caller.role}`}\u0000${entry.name}\u0000${req.idempotencyKey}` : null;
    if (scope) {
      const first = await this.deps.runs.byScope(scope);
      if (first) return both(await this.awaitFinal(first.id));
    }
    const started = await this.deps.runs.start(this.snapshot(base, redact), scope, this.deps.instanceId);
    if (!started) return both(await this.awaitFinal((await this.deps.runs.byScope(scope!))!.id));
    this.publish(started);

    const controller = new AbortController();
    // A child run ends with its parent's attempt (cancel, timeout, shutdown).
    const parent = req.signal;
    const onParentAbort = () => controller.abort(new ToolError("the parent run's attempt ended", { kind: "CANCELLED" }));
    if (parent?.aborted) onParentAbort();
    else parent?.addEventListener("abort", onParentAbort, { once: true });
    const done = this.execute(entry, base, (ctx) => entry.invoke(prepared.value, ctx), {
      caller: req.caller,
      timeoutSeconds: req.timeoutSeconds,
      controller,
      redact,
      policy: base.policy,
    });
    this.inflight.set(base.id, { controller, done });
    try {
      return await done;
    } finally {
      this.inflight.delete(base.id);
      parent?.removeEventListener("abort", onParentAbort);
    }
  }

  /**
   * Aborts a RUNNING run (on whichever instance holds it); no retry follows. Resolves
   * with the run once it has ended; a run that already ended is returned unchanged.
   */
  async cancel(runId: string): Promise<RunRecord | null> {
    const run = await this.deps.runs.get(runId);
    if (!run) return null;
    if (run.status === "PARKED") return (await this.endParked(runId, "CANCELLED", "the run was cancelled while parked")) ?? this.awaitFinal(runId);
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
   * Ends a PARKED run without resuming it (cancelled, or an interaction expired); null
   * when it was no longer parked.
   */
  async endParked(runId: string, status: "CANCELLED" | "FAILED", message: string, kind: ErrorKind = status === "CANCELLED" ? "CANCELLED" : "TIMEOUT"): Promise<RunRecord | null> {
    if (!(await this.deps.runs.claimParked(runId, this.deps.instanceId))) return null;
    const run = (await this.deps.runs.get(runId))!;
    await this.deps.interactions.cancelOpen(runId);
    Object.assign(run, failure(kind, message), { status, finishedAt: new Date().toISOString() });
    const ended = await this.deps.runs.finish(this.snapshot(run, run.input === REDACTED), null);
    this.publish(ended);
    return ended.run;
  }

  /** Resolves with the run once it is no longer RUNNING (any instance). */
  async awaitFinal(runId: string): Promise<RunRecord> {
    const local = this.inflight.get(runId);
    if (local) return (await local.done).run;
    let wake: () => void = () => {};
    const unlisten = this.deps.bus.listen("runEvent", (e) => {
      if (e.runId === runId && e.type !== "RUN_STARTED" && e.type !== "ATTEMPT_FAILED") wake();
    });
    try {
      for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
        const run = await this.deps.runs.get(runId);
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

  /** Stops accepting runs, waits up to `graceMs` for those in flight, then cancels the rest. */
  async drain(graceMs: number): Promise<void> {
    this.closing = true;
    const all = () => Promise.allSettled([...this.inflight.values()].map((f) => f.done));
    const timer = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), graceMs).unref());
    if ((await Promise.race([all(), timer])) === "timeout") {
      for (const f of this.inflight.values()) f.controller.abort(new ToolError("cancelled by server shutdown", { kind: "CANCELLED" }));
      await all();
    }
    this.unlistenCancel();
  }

  get runningCount(): number {
    return this.inflight.size;
  }

  private abortLocal(runId: string): boolean {
    const f = this.inflight.get(runId);
    if (!f) return false;
    f.controller.abort(new ToolError("the run was cancelled", { kind: "CANCELLED" }));
    return true;
  }

  private validateInput(entry: SurfaceEntry, input: unknown): { ok: true; value: unknown } | { ok: false; issues: Issue[] } {
    if (typeof input !== "object" || input === null || Array.isArray(input)) return { ok: false, issues: [{ path: "", message: "must be an object" }] };
    const unstorable = unstorableIssues(input);
    if (unstorable.length) return { ok: false, issues: unstorable };
    const overridden = (entry.bakedKeys ?? []).filter((k) => Object.hasOwn(input, k));
    if (overridden.length)
      return { ok: false, issues: overridden.map((k) => ({ path: `/${k}`, message: `is baked by preset "${entry.name}" and cannot be overridden` })) };
    const issues = validate(entry.inputSchema, input);
    if (issues.length) return { ok: false, issues };
    return entry.prepare(input as Record<string, unknown>);
  }

  /**
   * Runs `body` in the retry loop and settles the run: SUCCEEDED/FAILED/CANCELLED, or
   * PARKED when a pausing entry returned a park.
   */
  private async execute(
    entry: SurfaceEntry,
    run: RunRecord,
    body: (ctx: ToolContext) => Promise<unknown>,
    opts: { caller: Caller; timeoutSeconds?: number; controller: AbortController; redact: boolean; policy?: RunRecord["policy"]; resumed?: boolean },
  ): Promise<RunOutcome> {
    const { controller, redact } = opts;
    // Interactions of a run are opened only through its ctx (or were, before a resume):
    // a run that opened none has none to cancel, and skips that database round trip.
    let mayHaveOpen = opts.resumed ?? false;
    const log = this.deps.log.child({ runId: run.id, tool: entry.name });
    const timeoutSeconds = Math.min(opts.timeoutSeconds ?? entry.timeoutSeconds, entry.timeoutSeconds);
    const before = run.attempts.length;
    // Attempts already stored with their ATTEMPT_FAILED event; the outcome must not store them again.
    const stored = new Set<number>();
    const outcome = await runWithRetry<ToolResult | Park>({
      policy: opts.policy ?? undefined,
      timeoutSeconds,
      signal: controller.signal,
      attempt: async (n, signal) => {
        const ctx: ToolContext = {
          signal,
          runId: run.id,
          attempt: before + n,
          caller: opts.caller,
          log,
          redact: (secret) => this.deps.secrets.add(secret),
          runTool: async (name, childInput) => {
            const child = (await this.runDetailed({ tool: name, input: childInput, caller: opts.caller, door: "extension", parentRunId: run.id, signal })).output;
            // A secret-tier child's output may flow into this run's result: whatever this
            // run stores or publishes is scrubbed of it.
            if (this.deps.surface.base(name)?.tier === "secret") this.scopeOf(run.id).learn([child.content, child.data, child.details]);
            return child;
          },
          openInteraction: (request) => {
            mayHaveOpen = true;
            return this.deps.interactions.open(run.id, entry.name, request);
          },
          store: this.deps.store,
        };
        const value = await body(ctx);
        if (isPark(value)) return value;
        const result = normalizeResult(entry.name, value);
        if (result.isError) throw new ReturnedError(result);
        return result;
      },
      onRetry: async (attempt) => {
        attempt.number += before;
        run.attempts = [...run.attempts, attempt];
        this.publish(await this.deps.runs.attemptFailed(this.snapshot(run, redact), this.scrubber(run.id).scrub(attempt)));
        stored.add(attempt.number);
      },
    });
    for (const a of outcome.attempts) if (!stored.has(a.number)) a.number += before;
    const last = outcome.attempts[outcome.attempts.length - 1] ?? null;
    run.attempts = [...run.attempts.slice(0, before), ...outcome.attempts];
    run.finishedAt = new Date().toISOString();
    if (outcome.ok && isPark(outcome.value)) {
      if (entry.pauses) return this.park(entry, run, outcome.value, last && !stored.has(last.number) ? last : null, opts, log);
      Object.assign(run, failure("INTERNAL", `"${entry.name}" returned a park, but only tools in the pausing set and branches of pausing extensions may pause`));
    } else if (outcome.ok) {
      const result = outcome.value as ToolResult;
      const problems = entry.outputSchema && result.data !== undefined ? validate(entry.outputSchema, result.data) : [];
      if (entry.outputSchema && result.data === undefined) problems.push({ path: "", message: "the tool returned no structured data, but declares an output schema" });
      if (problems.length) {
        Object.assign(run, failure("INTERNAL", `the output of "${entry.name}" does not match its output schema: ${redact ? "see details" : describeIssues(problems)}`));
        if (last) Object.assign(last, { errorKind: "INTERNAL", errorMessage: run.errorMessage });
      } else Object.assign(run, { status: "SUCCEEDED", content: result.content, data: result.data ?? null, details: result.details ?? null, terminate: result.terminate });
    } else {
      const e = outcome.error;
      const returned = e instanceof ReturnedError ? e.result : null;
      Object.assign(run, failure(e.kind, e.message), e.kind === "CANCELLED" ? { status: "CANCELLED" } : {});
      if (returned) Object.assign(run, { content: returned.content, details: returned.details ?? null, terminate: returned.terminate, data: returned.data ?? null });
      if (e.kind === "INTERNAL" && !(e instanceof ReturnedError) && !(e.cause === undefined)) log.error("tool body threw", { error: redact ? "[redacted]" : String(e.cause) });
    }
    if (mayHaveOpen) await this.deps.interactions.cancelOpen(run.id);
    const ended = await this.persistOutcome(run, last && !stored.has(last.number) ? last : null, redact, log);
    this.learned.delete(run.id);
    this.publish(ended);
    return { run: ended.run, output: { ...run } };
  }

  /** Stores a park: interactions opened, state attached, run PARKED with a RUN_PARKED event. */
  private async park(entry: SurfaceEntry, run: RunRecord, p: Park, last: RunRecord["attempts"][number] | null, opts: { caller: Caller; redact: boolean }, log: Logger): Promise<RunOutcome> {
    const ids = [...(p.interactionIds ?? [])];
    for (const req of p.interactions ?? []) ids.push((await this.deps.interactions.open(run.id, entry.name, req)).id);
    if (!ids.length) {
      Object.assign(run, failure("INTERNAL", `"${entry.name}" returned a park with no interaction to wait on`));
      const ended = await this.persistOutcome(run, last, opts.redact, log);
      this.publish(ended);
      return { run: ended.run, output: { ...run } };
    }
    await this.deps.interactions.attachState(run.id, ids, p.state);
    Object.assign(run, { status: "PARKED", finishedAt: null });
    const parked = await this.deps.runs.finish(this.snapshot(run, opts.redact), last && this.scrubber(run.id).scrub(last), "RUN_PARKED");
    this.publish(parked);
    // An answer may have arrived before the park was stored (a fast callback).
    if (await this.deps.interactions.readyToResume(run.id)) return this.resume(run.id);
    return { run: parked.run, output: { ...run } };
  }

  /**
   * Resumes a PARKED run whose interactions are all answered, on this instance: the
   * entry's `resume` (default: the answer itself) runs through the same settle path.
   * If another instance is already resuming it, waits for that outcome.
   */
  async resume(runId: string): Promise<RunOutcome> {
    const ready = await this.deps.interactions.readyToResume(runId);
    if (!ready || !(await this.deps.runs.claimParked(runId, this.deps.instanceId))) return both(await this.awaitFinal(runId));
    const run = (await this.deps.runs.get(runId))!;
    await this.deps.interactions.consume(ready.ids);
    const entry = this.deps.surface.base(run.tool);
    const caller: Caller = { role: run.callerRole as Caller["role"], keyName: run.callerKey, keyId: run.callerKeyId };
    const controller = new AbortController();
    const redact = run.input === REDACTED;
    const body = async (ctx: ToolContext) => {
      if (!entry) throw new ToolError(`"${run.tool}" is no longer on the surface; the parked run cannot resume`, { kind: "NOT_FOUND" });
      return entry.resume ? entry.resume(ready.state, ready.answers, ctx) : defaultResume(ready.answers);
    };
    const done = this.execute(entry ?? ({ name: run.tool, pauses: false, timeoutSeconds: 30 } as SurfaceEntry), run, body, { caller, controller, redact, resumed: true });
    this.inflight.set(runId, { controller, done });
    try {
      return await done;
    } finally {
      this.inflight.delete(runId);
    }
  }

  /** Persists the outcome; a database blip is retried so a finished run is not lost. */
  private async persistOutcome(run: RunRecord, last: RunRecord["attempts"][number] | null, redact: boolean, log: Logger): Promise<RunEventRecord> {
    const snapshot = this.snapshot(run, redact);
    // The last attempt is stored as its own row: scrubbed like the run it belongs to.
    const attempt = last && this.scrubber(run.id).scrub(last);
    for (let i = 0; ; i++) {
      try {
        return await this.deps.runs.finish(snapshot, attempt);
      } catch (e) {
        if (i >= 4) throw e;
        log.warn("storing the run outcome failed; retrying", { error: (e as Error).message, try: i + 1 });
        await new Promise((r) => setTimeout(r, 200 * 2 ** i));
      }
    }
  }

  /** The record as stored and published: SECRET tiers redacted, known secret values scrubbed. */
  private snapshot(run: RunRecord, redact: boolean): RunRecord {
    const scrub = <T>(r: T) => this.scrubber(run.id).scrub(r);
    if (!redact) return scrub({ ...run });
    return { ...scrub(run), input: REDACTED, content: run.content.length ? [{ type: "text", text: REDACTED }] : [], data: run.data === null ? null : REDACTED, details: run.details === null ? null : REDACTED };
  }

  private async reject(run: RunRecord, kind: ErrorKind, message: string, details?: unknown): Promise<RunOutcome> {
    const ended: RunRecord = this.deps.secrets.scrub({ ...run, ...failure(kind, message), details: details ?? null, finishedAt: new Date().toISOString() });
    const started = await this.deps.runs.start(this.deps.secrets.scrub({ ...run }), null, this.deps.instanceId);
    this.publish(started!);
    const finished = await this.deps.runs.finish(ended, null);
    this.publish(finished);
    return both(ended);
  }

  /** What scrubs a run's records: its scope once its secret children taught it values, else the runtime's secrets. */
  private scrubber = (runId: string): Secrets | SecretScope => this.learned.get(runId) ?? this.deps.secrets;
  private scopeOf = (runId: string): SecretScope => this.learned.get(runId) ?? this.learned.set(runId, this.deps.secrets.scope()).get(runId)!;

  private publish(event: RunEventRecord): void {
    this.deps.bus.publish("runEvent", event);
  }
}

/** Without a `resume`, a resumed run's output is the answer (or, for several, answers by id). */
function defaultResume(answers: Record<string, unknown>): unknown {
  const values = Object.values(answers);
  return values.length === 1 ? values[0] : answers;
}

function both(run: RunRecord): RunOutcome {
  return { run, output: run };
}

function failure(kind: ErrorKind, message: string) {
  return { status: "FAILED" as const, isError: true, errorKind: kind, errorMessage: message };
}

/** A body returned an error result (not thrown): never retried, recorded with its kind. */
class ReturnedError extends ToolError {
  constructor(readonly result: ToolResult) {
    super(result.errorMessage ?? "the tool reported an error", { kind: result.errorKind ?? "UPSTREAM", retryable: false });
  }
}
