import type { EffectivePolicy, RetryPolicy } from "./policy.ts";

/**
 * The retry policy a run executes with: the first declaration along its entry's chain,
 * with the name it was declared on (docs/run-lifecycle.md §3). A run records it, and the
 * API serves it, as `retryPolicy`; the name is used for nothing else.
 */
export type AppliedPolicy = RetryPolicy & { declaredOn: string };

/** The registry's lookup as applied to a run; null when nothing is declared (exactly one attempt). */
export function appliedPolicy(effective: EffectivePolicy | undefined): AppliedPolicy | null {
  return effective ? { ...effective.policy, declaredOn: effective.declaredOn } : null;
}
