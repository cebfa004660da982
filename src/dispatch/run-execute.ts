import { breakerHooks, takeSlots, type LimitTicket } from "./run-limits.ts";
import { scrubAttempt } from "../secrets/value-fields.ts";
import type { Caller } from "../auth/roles.ts";
import { lazyChild, type Logger } from "../log.ts";
import { scrubbingLogger } from "../secrets/scrubbing-logger.ts";
import type { Scrubber } from "../secrets/secrets.ts";
import { isPark, type Park } from "../interactions/park.ts";
import type { ExecutedEntry } from "./executed-entry.ts";
import type { ToolContext } from "../tools/definition.ts";
import { normalizeResult, type ToolResult } from "../tools/result.ts";
import { park } from "./run-park.ts";
import { runWithRetry, type RetryLoopOutcome } from "./retry-loop.ts";
import type { AttemptRecord, RunEventRecord, RunRecord } from "./run-record.ts";
import { progressChannel } from "./run-progress.ts";
import { applyOutcome, failure, ReturnedError } from "./run-settle.ts";
import type { RunOutcome } from "./request.ts";
import type { RunSteps } from "./run-steps.ts";
import type { RunTrace } from "./observe.ts";
import { ToolError } from "../errors.ts";

/** How one execution of a run goes. */
export interface ExecuteOptions {
  caller: Caller;
  /** Overrides the entry's per-attempt timeout (capped by it only if smaller). */
  timeoutSeconds?: number;
  /** Aborts the attempt in flight: cancel, shutdown, the parent's attempt ending. */
  controller: AbortController;
  /** The entry is SECRET-tier: its stored and published records are redacted. */
  redact: boolean;
  retryPolicy?: RunRecord["retryPolicy"];
  /** A parked run resuming: it may have interactions open from before its park. */
  resumed?: boolean;
  /** The run's span; each attempt gets a child span (tracing on). */
  trace?: RunTrace;
  /** Told each RUN_PROGRESS of this execution once it is stored (`RunRequest.onProgress`). */
  onProgress?: (event: RunEventRecord) => void;
  /** The run request's idempotency key (`ToolContext.idempotencyKey`). */
  idempotencyKey?: string;
  /** The call the run carries out (`RunRequest.toolCallId`, `ToolContext.toolCallId`). */
  toolCallId?: string;
  /** The limits the run is under, when any applies (`run-limits.ts`): its breakers hear every attempt. */
  limits?: LimitTicket;
}

/** One execution's fixed parts, shared by its steps. */
interface Execution {
  steps: RunSteps;
  entry: ExecutedEntry;
  run: RunRecord;
  opts: ExecuteOptions;
  /** The run's logger. */
  log: Logger;
  /** Attempts stored before this execution. */
  before: number;
}

/**
 * The run's logger for the body: scrubbed of its run's own secrets too (declared inputs, redactions, secret
 * children's results).
 */
function bodyLogger(x: Execution): Logger {
  const { settle } = x.steps;
  const runScrubber: Scrubber = {
    scrubText: (t) => settle.scrubber(x.run.id).scrubText(t),
    scrub: (v) => settle.scrubber(x.run.id).scrub(v),
  };
  return scrubbingLogger(x.log, runScrubber);
}

/** What a tool body is given for attempt `n`: signal, logger, redaction, child runs, interactions, progress. */
function attemptContext(
  x: Execution,
  n: number,
  signal: AbortSignal,
  bodyLog: Logger,
  progress: ReturnType<typeof progressChannel>,
  opened: () => void,
): ToolContext {
  const { steps, entry, run, opts, log, before } = x;
  const { deps, settle } = steps;
  return {
    signal,
    runId: run.id,
    idempotencyKey: opts.idempotencyKey,
    ...(opts.toolCallId === undefined ? {} : { toolCallId: opts.toolCallId }),
    attempt: before + n,
    caller: opts.caller,
    log: bodyLog,
    redact: (secret) => {
      // The run's scope and the bounded cross-run cache; what the run stored before it knew the value is rewritten
      // (docs/security-model.md §3).
      deps.secrets.remember(secret, settle.scopeOf(run.id));
      settle.redacted(run.id, log);
    },
    childSecrets: () => settle.scopeOf(run.id).scope(),
    runTool: async (name, childInput) => {
      const child = (
        await steps.runDetailed({
          tool: name,
          input: childInput,
          caller: opts.caller,
          door: "extension",
          parentRunId: run.id,
          signal,
        })
      ).output;
      // A secret-tier child's output may flow into this run's result: whatever this
      // run stores or publishes is scrubbed of it.
      if (deps.surface.base(name)?.tier === "secret")
        settle.scopeOf(run.id).learn([child.content, child.data, child.details]);
      return child;
    },
    openInteraction: (request) => {
      opened();
      return deps.interactions.open(run.id, entry.name, request);
    },
    store: deps.store,
    onUpdate: (update) => progress.update(update),
  };
}

/** Stores a retried attempt (its ATTEMPT_FAILED event), or stops the run if another instance ended it. */
async function storeRetriedAttempt(x: Execution, attempt: AttemptRecord, stored: Set<number>): Promise<void> {
  const { deps, settle } = x.steps;
  const { run, opts } = x;
  attempt.number += x.before;
  run.attempts = [...run.attempts, attempt];
  const event = await deps.runs.attemptFailed(
    settle.snapshot(run, opts.redact),
    scrubAttempt(settle.scrubber(run.id), attempt),
  );
  // Another instance already ended the run (this one looked gone): no retry, and the
  // stored outcome stands (the finish below writes nothing over it).
  if (!event) return void opts.controller.abort(new ToolError(FENCED, { kind: "CANCELLED" }));
  settle.publish(event);
  stored.add(attempt.number);
}

/** Settles the run from the loop's outcome: parked, or finished with its result or failure. */
async function settleExecution(
  x: Execution,
  outcome: RetryLoopOutcome<ToolResult | Park>,
  stored: Set<number>,
  mayHaveOpen: () => boolean,
): Promise<RunOutcome> {
  const { steps, entry, run, log, before } = x;
  const { deps, settle } = steps;
  const { redact } = x.opts;
  deps.observer?.attempted(entry.name, outcome.attempts.length);
  for (const a of outcome.attempts) if (!stored.has(a.number)) a.number += before;
  const last = outcome.attempts[outcome.attempts.length - 1] ?? null;
  const unstored = last && !stored.has(last.number) ? last : null;
  run.attempts = [...run.attempts.slice(0, before), ...outcome.attempts];
  run.finishedAt = new Date().toISOString();
  if (outcome.ok && isPark(outcome.value)) {
    if (entry.pauses) return park(steps, entry, run, outcome.value, unstored, redact, log);
    Object.assign(
      run,
      failure(
        "INTERNAL",
        `"${entry.name}" returned a park, but only tools in the pausing set and branches of pausing extensions may pause`,
      ),
    );
  } else applyOutcome(entry, run, outcome as RetryLoopOutcome<ToolResult>, last, redact, log);
  if (mayHaveOpen()) await deps.interactions.cancelOpen(run.id);
  return settle.finish(run, unstored, redact, log);
}

/**
 * Runs `body` in the retry loop and settles the run (docs/run-lifecycle.md §2, steps 6–8):
 * SUCCEEDED/FAILED/CANCELLED, or PARKED when a pausing entry returned a park.
 */
export async function execute(
  steps: RunSteps,
  entry: ExecutedEntry,
  run: RunRecord,
  body: (ctx: ToolContext) => Promise<unknown>,
  opts: ExecuteOptions,
): Promise<RunOutcome> {
  const { deps, settle } = steps;
  // Interactions of a run are opened only through its ctx (or were, before a resume):
  // a run that opened none has none to cancel, and skips that database round trip.
  let mayHaveOpen = opts.resumed ?? false;
  const log = lazyChild(deps.log, { runId: run.id, tool: entry.name });
  const x: Execution = { steps, entry, run, opts, log, before: run.attempts.length };
  const bodyLog = bodyLogger(x);
  const timeoutSeconds = Math.min(opts.timeoutSeconds ?? entry.timeoutSeconds, entry.timeoutSeconds);
  // Attempts already stored with their ATTEMPT_FAILED event; the outcome must not store them again.
  const stored = new Set<number>();
  const progress = progressChannel(deps, settle, run, opts.redact, log, opts.onProgress);
  if (opts.limits) await takeSlots(opts.limits, opts.caller, run.input, opts.controller.signal);
  const outcome = await runWithRetry<ToolResult | Park>({
    policy: opts.retryPolicy ?? undefined,
    timeoutSeconds,
    signal: opts.controller.signal,
    attempt: async (n, signal) => {
      const ctx = attemptContext(x, n, signal, bodyLog, progress, () => {
        mayHaveOpen = true;
      });
      const value = await (opts.trace ? opts.trace.attempt(x.before + n, () => body(ctx)) : body(ctx));
      if (isPark(value)) return value;
      const result = normalizeResult(entry.name, value, opts.toolCallId);
      if (result.isError) throw new ReturnedError(result);
      return result;
    },
    onRetry: (attempt) => storeRetriedAttempt(x, attempt, stored),
    ...breakerHooks(opts.limits),
  });
  progress.close();
  return settleExecution(x, outcome, stored, () => mayHaveOpen);
}

/** Why a run is stopped on the instance that executes it after another instance ended it. */
export const FENCED =
  "this instance was declared gone (its heartbeat lapsed) and the run was failed by another instance; it was stopped here and nothing more is recorded";
