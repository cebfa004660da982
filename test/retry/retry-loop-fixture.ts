import { afterEach, beforeEach, vi } from "vitest";
import { runWithRetry, type RetryLoopOptions } from "../../src/dispatch/retry-loop.ts";
import { ToolError, type ErrorKind } from "../../src/errors.ts";
import { resolvePolicy, type RetryPolicyInit } from "../../src/retry/policy.ts";

/** The shared setup of the retry-loop tests (retry-loop.test.ts, retry-loop-timeout.test.ts). */

export const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
export const policy = (init: Partial<RetryPolicyInit> = {}) =>
  resolvePolicy("t", { maxAttempts: 3, idempotent: true, retryable: true, ...init });

/** A body that records when each attempt started, and fails with `kinds[n-1]` (the last kind repeats). */
export function failing(kinds: ErrorKind[], extra: { retryable?: boolean; retryAfterSeconds?: number } = {}) {
  const startedAt: number[] = [];
  const body = vi.fn(async (n: number) => {
    startedAt.push(Date.now() - T0);
    const kind = kinds[Math.min(n, kinds.length) - 1];
    throw new ToolError(`attempt ${n} failed with ${kind}`, { kind, ...extra });
  });
  return { body, startedAt };
}

/** A body that never settles by itself and rejects with the signal's reason when aborted. */
export function hanging() {
  const signals: AbortSignal[] = [];
  const startedAt: number[] = [];
  const body = vi.fn(
    (_n: number, signal: AbortSignal) =>
      new Promise<never>((_, reject) => {
        startedAt.push(Date.now() - T0);
        signals.push(signal);
        signal.addEventListener("abort", () => reject(signal.reason));
      }),
  );
  return { body, signals, startedAt };
}

export function loop<T>(options: Partial<RetryLoopOptions<T>> & Pick<RetryLoopOptions<T>, "attempt">) {
  return runWithRetry<T>({ policy: undefined, timeoutSeconds: 60, signal: new AbortController().signal, ...options });
}

/** Runs each test of the calling file on fake timers starting at T0. */
export function useFakeClockAtT0(): void {
  beforeEach(() => {
    vi.useFakeTimers({ now: T0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}
