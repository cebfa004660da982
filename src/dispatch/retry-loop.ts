import { isToolError, ToolError } from "../errors.ts";
import type { RetryPolicy } from "../retry/policy.ts";
import { nextWait } from "../retry/verdict.ts";
import type { AttemptRecord } from "./run-record.ts";

/** Inputs of {@link runWithRetry}. */
export interface RetryLoopOptions<T> {
  /** null: exactly one attempt. */
  policy: RetryPolicy | undefined;
  /** Per-attempt timeout in seconds. */
  timeoutSeconds: number;
  /** Aborts the attempt in flight and any wait; no retry follows. Its reason should be a ToolError. */
  signal: AbortSignal;
  /**
   * Runs attempt `n`. Contract: should stop when `signal` aborts; a body that ignores it is abandoned at the timeout.
   */
  attempt: (n: number, signal: AbortSignal) => Promise<T>;
  /** Called after a failed attempt that will be retried, before the wait. */
  onRetry?: (attempt: AttemptRecord, error: ToolError) => Promise<void> | void;
  /** Told each attempt's outcome: `kind` null on success (the breakers count it: docs/flow-control.md §3). */
  attempted?: (kind: string | null, retryAfterSeconds?: number) => Promise<void>;
  /**
   * After the wait before a retry: resolves once the retry may go (an open breaker waited for), or with why it may
   * not (the breaker stays open past the budget): the run then ends UNAVAILABLE with that time to retry.
   */
  beforeRetry?: (waitMs: number, signal: AbortSignal) => Promise<{ message: string; retryAfterSeconds: number } | null>;
}

export type RetryLoopOutcome<T> =
  { ok: true; value: T; attempts: AttemptRecord[] } | { ok: false; error: ToolError; attempts: AttemptRecord[] };

/**
 * The retry loop of the chokepoint: attempts, a wait, and the verdict of
 * `retry/verdict.ts`. Never throws; a failure is the outcome's `error`.
 */
export async function runWithRetry<T>(options: RetryLoopOptions<T>): Promise<RetryLoopOutcome<T>> {
  const attempts: AttemptRecord[] = [];
  for (let n = 1; ; n++) {
    const startedAt = new Date().toISOString();
    if (options.signal.aborted) {
      const error = abortError(options.signal);
      return { ok: false, error, attempts };
    }
    try {
      const value = await attemptWithTimeout(options, n);
      await options.attempted?.(null);
      attempts.push({
        number: n,
        startedAt,
        finishedAt: new Date().toISOString(),
        errorKind: null,
        errorMessage: null,
        waitSeconds: null,
      });
      return { ok: true, value, attempts };
    } catch (thrown) {
      const error = options.signal.aborted ? abortError(options.signal) : ToolError.fromUnknown(thrown);
      await options.attempted?.(error.kind, error.retryAfterSeconds);
      const wait = options.signal.aborted ? null : nextWait(options.policy, n, error);
      const record: AttemptRecord = {
        number: n,
        startedAt,
        finishedAt: new Date().toISOString(),
        errorKind: error.kind,
        errorMessage: error.message,
        waitSeconds: wait,
      };
      attempts.push(record);
      if (wait === null) return { ok: false, error, attempts };
      await options.onRetry?.(record, error);
      try {
        await sleep(wait * 1000, options.signal);
      } catch {
        return { ok: false, error: abortError(options.signal), attempts };
      }
      const held = await options.beforeRetry?.(wait * 1000, options.signal);
      if (held) {
        const { message, retryAfterSeconds } = held;
        return { ok: false, error: new ToolError(message, { kind: "UNAVAILABLE", retryAfterSeconds }), attempts };
      }
    }
  }
}

async function attemptWithTimeout<T>(options: RetryLoopOptions<T>, n: number): Promise<T> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal.reason);
  options.signal.addEventListener("abort", onAbort, { once: true });
  let clearTimer = () => {};
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
    clearTimer = longTimeout(
      () =>
        controller.abort(new ToolError(`the attempt timed out after ${options.timeoutSeconds}s`, { kind: "TIMEOUT" })),
      options.timeoutSeconds * 1000,
    );
  });
  try {
    // A body that ignores its signal is abandoned here when the timeout or cancel fires.
    return await Promise.race([options.attempt(n, controller.signal), aborted]);
  } finally {
    clearTimer();
    options.signal.removeEventListener("abort", onAbort);
    aborted.catch(() => {});
  }
}

function abortError(signal: AbortSignal): ToolError {
  const r = signal.reason;
  return isToolError(r) ? r : new ToolError("the run was cancelled", { kind: "CANCELLED" });
}

/** Waits `ms`, rejecting early when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const clear = longTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clear();
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

// setTimeout fires at once for a delay past 2^31-1 ms (~24.8 days); chain timers instead.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Calls `fn` after `ms`, however long; returns a function that clears it. */
function longTimeout(fn: () => void, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout>;
  const step = (left: number) => {
    timer = left > MAX_TIMER_MS ? setTimeout(() => step(left - MAX_TIMER_MS), MAX_TIMER_MS) : setTimeout(fn, left);
  };
  step(ms);
  return () => clearTimeout(timer);
}
