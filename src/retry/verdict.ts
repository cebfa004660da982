import type { ToolError } from "../errors.ts";
import type { RetryPolicy } from "./policy.ts";

/**
 * Whether a failed attempt is retried (ignoring the budget). Precedence:
 * 1. the error's own boolean `retryable` verdict, in both directions, for every kind;
 * 2. otherwise its kind must be on the policy's list;
 * an error with neither is never retried. A cancelled run is never retried, but that
 * is the retry loop's rule (it checks the run's signal), not a verdict on the kind.
 */
export function shouldRetry(policy: RetryPolicy, error: ToolError): boolean {
  if (typeof error.retryable === "boolean") return error.retryable;
  return policy.retryableKinds.includes(error.kind);
}

/**
 * Seconds to wait after failed attempt `n` (1-based):
 * `min(capSeconds, initialSeconds * multiplier ** (n-1))`, widened to the error's
 * `retryAfterSeconds` when that asks for longer.
 */
export function backoffSeconds(policy: RetryPolicy, attempt: number, retryAfterSeconds?: number): number {
  const { initialSeconds, multiplier, capSeconds } = policy.backoff;
  const own = Math.min(capSeconds, initialSeconds * multiplier ** (attempt - 1));
  return retryAfterSeconds !== undefined && retryAfterSeconds > own ? retryAfterSeconds : own;
}

/** The retry decision after attempt `n` failed: `null` means stop. */
export function nextWait(policy: RetryPolicy | undefined, attempt: number, error: ToolError): number | null {
  if (!policy || attempt >= policy.maxAttempts) return null;
  if (!shouldRetry(policy, error)) return null;
  return backoffSeconds(policy, attempt, error.retryAfterSeconds);
}
