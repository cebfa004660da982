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

/** What {@link retryExplained} needs of a surface entry. */
interface Explained {
  name: string;
  origin: string;
  baseTool?: string | null;
  policyChain: readonly string[];
}

/**
 * Why a run of `entry` gets the attempts it gets, in words (served as `Tool.retryExplained`, shown by the dashboard):
 * the name its policy was declared on, or why it has none, a branch inheriting nothing from what it wraps.
 */
export function retryExplained(entry: Explained, effective: EffectivePolicy | undefined): string {
  if (effective) {
    const { policy, declaredOn } = effective;
    const attempts = policy.maxAttempts === 1 ? "one attempt" : `up to ${policy.maxAttempts} attempts`;
    return declaredOn === entry.name
      ? `${attempts}: the retry policy declared on "${declaredOn}"`
      : `${attempts}: the retry policy declared on "${declaredOn}", which "${entry.name}" builds on`;
  }
  if (entry.origin === "BRANCH")
    return (
      `one attempt: a branch inherits no retry policy from ${entry.baseTool ? `"${entry.baseTool}"` : "the tool it wraps"}` +
      ` (docs/run-lifecycle.md §3); declare one for "${entry.name}" itself (app.retryPolicy or a manifest's retry)`
    );
  const chain = entry.policyChain.map((n) => `"${n}"`).join(", ");
  return `one attempt: no retry policy is declared on ${chain || `"${entry.name}"`}`;
}
