import { z } from "zod";
import { DEFAULT_TRANSIENT_KINDS, describeIssues, ERROR_KINDS, type ErrorKind } from "../errors.ts";
import { parseDeclaration } from "../validation/declaration.ts";

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

const FINITE = (min: number) => {
  const error = `must be a finite number >= ${min}`;
  return z.number({ error }).gte(min, { error }).optional();
};
const ATTEMPTS = "must be an integer from 1 to 100 (the total attempt budget)";
const unknownKey = (field: string, what: string) => (issue: { code: string }) =>
  issue.code === "unrecognized_keys" ? `is not a ${field} field` : what;

/** The declaration of a retry policy (docs/tool-authoring.md). */
const RetryPolicySchema = z
  .strictObject(
    {
      maxAttempts: z
        .number({ error: ATTEMPTS })
        .int({ error: ATTEMPTS })
        .min(1, { error: ATTEMPTS })
        .max(100, { error: ATTEMPTS }),
      idempotent: z.boolean({ error: "is required and must be a boolean" }),
      retryable: z
        .union([z.boolean(), z.array(z.enum(ERROR_KINDS, { error: `must be one of ${ERROR_KINDS.join(", ")}` }))], {
          error: "must be true, false or a list of error kinds",
        })
        .optional(),
      backoff: z
        .strictObject(
          { initialSeconds: FINITE(0), multiplier: FINITE(1), capSeconds: FINITE(0) },
          { error: unknownKey("backoff", "must be an object") },
        )
        .nullish(),
    },
    { error: unknownKey("retry policy", "must be an object") },
  )
  .superRefine(
    (init, ctx) => {
      // The double-send guard: checked even when another field is broken, so every problem is named at once.
      if (typeof init?.idempotent === "boolean" && !init.idempotent && (init.maxAttempts as unknown as number) > 1)
        ctx.addIssue({
          code: "custom",
          path: ["idempotent"],
          message: "must be true when maxAttempts > 1: retrying a body that is not idempotent could send twice",
        });
    },
    { when: (payload) => typeof payload.value === "object" && payload.value !== null },
  );

/**
 * Validates and resolves a declaration. Refuses a retrying policy that is not declared
 * idempotent (the double-send guard). A refusal is a `DefinitionError` of rule
 * `retry.policy` whose `issues` name each broken field and whose `subject` is `subject`.
 */
export function resolvePolicy(subject: string, init: RetryPolicyInit): RetryPolicy {
  const parsed = parseDeclaration(RetryPolicySchema, init, "retry.policy", {
    subject,
    describe: (issues) => `invalid retry policy for "${subject}": ${describeIssues(issues)}`,
  });
  const r = parsed.retryable ?? true;
  const kinds: readonly ErrorKind[] = r === true ? DEFAULT_TRANSIENT_KINDS : r === false ? [] : [...new Set(r)];
  const backoff: RetryBackoff = { ...DEFAULT_BACKOFF };
  for (const [key, value] of Object.entries(parsed.backoff ?? {}))
    if (value !== undefined) backoff[key as keyof RetryBackoff] = value;
  return { maxAttempts: parsed.maxAttempts, idempotent: parsed.idempotent, retryableKinds: kinds, backoff };
}

/** A policy together with the name whose declaration it came from. */
export interface EffectivePolicy {
  policy: RetryPolicy;
  declaredOn: string;
}
