import { DEFAULT_TRANSIENT_KINDS, ERROR_KINDS, isErrorKind, type ErrorKind, type Issue } from "../errors.ts";

/** Exponential backoff: attempt n waits `min(capSeconds, initialSeconds * multiplier ** (n-1))`. */
export interface RetryBackoff {
  /** @default 0.5 */
  initialSeconds: number;
  /** @default 2 */
  multiplier: number;
  /** Bounds the platform's own growth, not a server's explicit `retryAfterSeconds`. @default 30 */
  capSeconds: number;
}

/** A retry policy as an author declares it. */
export interface RetryPolicyInit {
  /** The total attempt budget, the first attempt included: 1 means no retry. */
  maxAttempts: number;
  /** The author's claim that re-firing the body is safe. Required for `maxAttempts > 1`. */
  idempotent: boolean;
  /** `true`: the default transient kinds; a list: exactly those; `false`: kind-based retry off. @default true */
  retryable?: boolean | readonly ErrorKind[];
  backoff?: Partial<RetryBackoff>;
}

/** A validated policy with every default resolved. */
export interface RetryPolicy {
  maxAttempts: number;
  idempotent: boolean;
  retryableKinds: readonly ErrorKind[];
  backoff: RetryBackoff;
}

export const DEFAULT_BACKOFF: RetryBackoff = { initialSeconds: 0.5, multiplier: 2, capSeconds: 30 };

/** Thrown when a declared policy breaks a rule; `issues` names each broken rule. */
export class RetryPolicyError extends Error {
  constructor(
    readonly subject: string,
    readonly issues: Issue[],
  ) {
    super(`invalid retry policy for "${subject}": ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`);
    this.name = "RetryPolicyError";
  }
}

/**
 * Validates and resolves a declaration. Refuses a retrying policy that is not declared
 * idempotent (the double-send guard).
 */
export function resolvePolicy(subject: string, init: RetryPolicyInit): RetryPolicy {
  const issues: Issue[] = [];
  const raw = init as unknown as Record<string, unknown>;
  if (typeof raw !== "object" || raw === null) throw new RetryPolicyError(subject, [{ path: "", message: "must be an object" }]);
  for (const key of Object.keys(raw))
    if (!["maxAttempts", "idempotent", "retryable", "backoff"].includes(key)) issues.push({ path: `/${key}`, message: "is not a retry policy field" });
  if (!Number.isInteger(init.maxAttempts) || init.maxAttempts < 1 || init.maxAttempts > 100)
    issues.push({ path: "/maxAttempts", message: "must be an integer from 1 to 100 (the total attempt budget)" });
  if (typeof init.idempotent !== "boolean") issues.push({ path: "/idempotent", message: "is required and must be a boolean" });
  else if (init.maxAttempts > 1 && init.idempotent !== true)
    issues.push({ path: "/idempotent", message: "must be true when maxAttempts > 1: retrying a body that is not idempotent could send twice" });
  let kinds: readonly ErrorKind[] = DEFAULT_TRANSIENT_KINDS;
  const r = init.retryable ?? true;
  if (r === false) kinds = [];
  else if (Array.isArray(r)) {
    r.forEach((k, i) => {
      if (!isErrorKind(k)) issues.push({ path: `/retryable/${i}`, message: `must be one of ${ERROR_KINDS.join(", ")}` });
    });
    kinds = [...new Set(r)] as ErrorKind[];
  } else if (r !== true) issues.push({ path: "/retryable", message: "must be true, false or a list of error kinds" });
  const backoff = { ...DEFAULT_BACKOFF };
  const given = init.backoff ?? {};
  const isObject = typeof given === "object" && given !== null && !Array.isArray(given);
  if (!isObject) issues.push({ path: "/backoff", message: "must be an object" });
  for (const [key, value] of Object.entries(isObject ? given : {})) {
    if (!(key in DEFAULT_BACKOFF)) issues.push({ path: `/backoff/${key}`, message: "is not a backoff field" });
    else if (value !== undefined) backoff[key as keyof RetryBackoff] = value as number;
  }
  const finite = (v: unknown, min: number) => typeof v === "number" && Number.isFinite(v) && v >= min;
  if (!finite(backoff.initialSeconds, 0)) issues.push({ path: "/backoff/initialSeconds", message: "must be a finite number >= 0" });
  if (!finite(backoff.multiplier, 1)) issues.push({ path: "/backoff/multiplier", message: "must be a finite number >= 1" });
  if (!finite(backoff.capSeconds, 0)) issues.push({ path: "/backoff/capSeconds", message: "must be a finite number >= 0" });
  if (issues.length) throw new RetryPolicyError(subject, issues);
  return { maxAttempts: init.maxAttempts, idempotent: init.idempotent, retryableKinds: kinds, backoff };
}

/** A policy together with the name whose declaration it came from. */
export interface EffectivePolicy {
  policy: RetryPolicy;
  declaredOn: string;
}
