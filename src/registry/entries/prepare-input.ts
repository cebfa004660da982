import { ToolError, type Issue } from "../../errors.ts";
import { validate } from "../../tools/json-schema.ts";
import type { SurfaceEntry } from "../surface-entry.ts";

/** An input an entry accepted (its body's value), or why it refused it and at which step. */
export type Prepared = { ok: true; value: unknown } | { ok: false; issues: Issue[]; refusedBy: "schema" | "prepare" };

/**
 * The one validate-then-prepare of an entry's input (docs/architecture.md): the JSON
 * input against the entry's input schema, then the entry's own `prepare` (zod parsing,
 * baked-kwarg merging). The chokepoint runs it on every dispatch; a preset or branch runs
 * it on the base it builds on.
 */
export function prepareInput(entry: SurfaceEntry, input: Record<string, unknown>): Prepared {
  const issues = validate(entry.inputSchema, input);
  if (issues.length) return { ok: false, issues, refusedBy: "schema" };
  const prepared = entry.prepare(input);
  return prepared.ok ? prepared : { ok: false, issues: prepared.issues, refusedBy: "prepare" };
}

/**
 * {@link prepareInput} for a layer over `base`: a refusal is an INVALID_INPUT ToolError, never retried, worded by
 * `message`.
 */
export function preparedForBase(
  base: SurfaceEntry,
  input: Record<string, unknown>,
  message: (refusal: Extract<Prepared, { ok: false }>) => string,
): unknown {
  const prepared = prepareInput(base, input);
  if (!prepared.ok) throw new ToolError(message(prepared), { kind: "INVALID_INPUT", retryable: false });
  return prepared.value;
}
