import { z } from "zod";
import { isDefinitionError } from "../definition-error.ts";
import { describeIssues, type Issue } from "../errors.ts";
import { parseDeclaration } from "../validation/declaration.ts";

/**
 * Which dispatches share a limit's counter (docs/flow-control.md §1): every caller (`tool`), per caller key (`key`),
 * or per value of one input field (`input:<json-pointer>`).
 */
export type LimitScope = "tool" | "key" | `input:${string}`;

/** At most `max` bodies at once in the scope, on all instances together. */
export interface ConcurrencyLimit {
  max: number;
  scope: LimitScope;
  /** How long a synchronous dispatch over the cap waits for a slot. @default 10 */
  waitSeconds: number;
}

/** A token bucket: `burst` tokens, `tokens` refilled every `intervalSeconds`. */
export interface RateLimit {
  tokens: number;
  intervalSeconds: number;
  burst: number;
  /** `tool`: one bucket for the tool; `key`: one per caller key for the tool; `key:*`: one per key across tools. */
  per: "tool" | "key" | "key:*";
}

/** Open after `failures` consecutive transient failures, for `coolDownSeconds`; then half-open. */
export interface BreakerLimit {
  failures: number;
  coolDownSeconds: number;
}

/** The limits declared on one name (a tool, a stored preset, a connector's tool). */
export interface Limits {
  concurrency?: ConcurrencyLimit;
  rate?: RateLimit;
  breaker?: BreakerLimit;
}

/** A declaration as an author writes it: defaults may be left out. */
export interface LimitsInit {
  concurrency?: { max: number; scope?: LimitScope; waitSeconds?: number };
  rate?: { tokens: number; intervalSeconds?: number; burst?: number; per?: RateLimit["per"] };
  breaker?: { failures: number; coolDownSeconds?: number };
}

const int = (min: number, max: number, what: string) => {
  const error = `must be an integer from ${min} to ${max}${what}`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};
const seconds = (min: number, max: number) => {
  const error = `must be a number of seconds from ${min} to ${max}`;
  return z.number({ error }).min(min, { error }).max(max, { error });
};
const fields = (what: string) => (issue: { code: string }) =>
  issue.code === "unrecognized_keys" ? `is not a ${what} field` : "must be an object";
const SCOPE = "must be tool, key, or input:<a JSON pointer such as /accountId>";

const LimitsSchema = z.strictObject(
  {
    concurrency: z
      .strictObject(
        {
          max: int(1, 10_000, " (bodies at once)"),
          scope: z
            .string({ error: SCOPE })
            .refine((s) => s === "tool" || s === "key" || /^input:\/./.test(s), { error: SCOPE })
            .optional(),
          waitSeconds: seconds(0, 300).optional(),
        },
        { error: fields("concurrency") },
      )
      .optional(),
    rate: z
      .strictObject(
        {
          tokens: int(1, 1_000_000, " (dispatches per interval)"),
          intervalSeconds: seconds(0.001, 86_400).optional(),
          burst: int(1, 1_000_000, " (tokens the bucket holds)").optional(),
          per: z.enum(["tool", "key", "key:*"], { error: "must be tool, key or key:*" }).optional(),
        },
        { error: fields("rate") },
      )
      .refine((r) => r.burst === undefined || r.burst >= r.tokens, {
        path: ["burst"],
        error: "must be at least tokens",
      })
      .optional(),
    breaker: z
      .strictObject(
        { failures: int(1, 1000, " (consecutive failures)"), coolDownSeconds: seconds(0.1, 3600).optional() },
        { error: fields("breaker") },
      )
      .optional(),
  },
  { error: fields("limits") },
);

/**
 * Validates and resolves a declaration of limits with every default filled in. A refusal is a `DefinitionError` of
 * rule `limits` whose issues name each broken field (under `/`), subject `subject`.
 */
export function resolveLimits(subject: string, init: LimitsInit): Limits {
  const parsed = parseDeclaration(LimitsSchema, init, "limits", {
    subject,
    describe: (issues) => `invalid limits for "${subject}": ${describeIssues(issues)}`,
  });
  const limits: Limits = {};
  if (parsed.concurrency)
    limits.concurrency = {
      max: parsed.concurrency.max,
      scope: (parsed.concurrency.scope ?? "tool") as LimitScope,
      waitSeconds: parsed.concurrency.waitSeconds ?? 10,
    };
  if (parsed.rate)
    limits.rate = {
      tokens: parsed.rate.tokens,
      intervalSeconds: parsed.rate.intervalSeconds ?? 1,
      burst: parsed.rate.burst ?? parsed.rate.tokens,
      per: parsed.rate.per ?? "tool",
    };
  if (parsed.breaker)
    limits.breaker = { failures: parsed.breaker.failures, coolDownSeconds: parsed.breaker.coolDownSeconds ?? 30 };
  return limits;
}

/** True when nothing is declared. */
export const noLimits = (l: Limits | undefined): boolean => !l || (!l.concurrency && !l.rate && !l.breaker);

/** The problems of a stored declaration of limits (a preset's, a connector tool's), at their paths under `at`. */
export function limitsIssues(subject: string, init: unknown, at: string): Issue[] {
  try {
    resolveLimits(subject, init as LimitsInit);
    return [];
  } catch (e) {
    if (!isDefinitionError(e, "limits")) throw e;
    return e.issues.map((i) => ({ path: `${at}${i.path}`, message: i.message }));
  }
}
