import type { z } from "zod";
import { DefinitionError, type DefinitionErrorOptions } from "../definition-error.ts";
import { describeIssues, type Issue } from "../errors.ts";

/** Escapes one JSON-pointer segment (RFC 6901: `~` → `~0`, `/` → `~1`). */
function segment(key: PropertyKey): string {
  return String(key).replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * A zod error as the one issue shape of tai42: `{path, message}` with JSON-pointer paths
 * under `base` ("" is the root). An unknown key is reported at its own path.
 */
export function zodIssues(error: z.ZodError, base = ""): Issue[] {
  return toIssues(error.issues, base);
}

function toIssues(issues: readonly z.core.$ZodIssue[], base: string): Issue[] {
  return issues.flatMap((issue): Issue[] => {
    const path = base + issue.path.map((k) => `/${segment(k)}`).join("");
    if (issue.code === "unrecognized_keys")
      return issue.keys.map((key) => ({ path: `${path}/${segment(key)}`, message: issue.message }));
    if (issue.code === "invalid_union") {
      // The value's type chose one branch when only that branch failed below its root
      // (e.g. a list where "true, false or a list" is allowed): report that branch's issues.
      const chosen = issue.errors.filter((branch) => branch.length > 0 && branch.every((i) => i.path.length > 0));
      if (chosen.length === 1) return toIssues(chosen[0], path);
    }
    return [{ path, message: issue.message }];
  });
}

/**
 * A zod error's issues as zod reports them, one per issue: its path segments joined under `/` as they are
 * ("" is the root), not escaped and an unknown key not split out (what a tool's or an agent's input reports).
 */
export function reportedZodIssues(error: z.ZodError): Issue[] {
  return error.issues.map((i) => ({ path: i.path.length ? `/${i.path.join("/")}` : "", message: i.message }));
}

/** The problems a declaration has against its schema; empty when it fits. */
export function declarationIssues(schema: z.ZodType, value: unknown, base = ""): Issue[] {
  const result = schema.safeParse(value);
  return result.success ? [] : zodIssues(result.error, base);
}

/** How a refusal reads: `describe(issues)` builds the message (default: `subject: /path: message; …`). */
export interface DeclarationRefusal extends Omit<DefinitionErrorOptions, "issues"> {
  describe?: (issues: Issue[]) => string;
}

/**
 * Parses a declaration with its zod schema: the parsed value, or a {@link DefinitionError}
 * of `rule` carrying every issue.
 */
export function parseDeclaration<S extends z.ZodType>(
  schema: S,
  value: unknown,
  rule: string,
  refusal: DeclarationRefusal = {},
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw refuse(rule, zodIssues(result.error), refusal);
}

/** A {@link DefinitionError} of `rule` for these issues. */
export function refuse(rule: string, issues: Issue[], refusal: DeclarationRefusal = {}): DefinitionError {
  const { describe, ...options } = refusal;
  const message = describe
    ? describe(issues)
    : `${options.subject ? `${options.subject}: ` : ""}${describeIssues(issues)}`;
  return new DefinitionError(rule, message, { ...options, issues });
}
