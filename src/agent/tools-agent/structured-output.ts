import type { Issue } from "../../errors.ts";
import { validate, type JsonSchema } from "../../tools/json-schema.ts";

/**
 * Reads a final answer as JSON and validates it against `responseFormat`. A code fence
 * around the JSON is tolerated; anything else that is not JSON is one issue.
 */
export function parseStructured(
  text: string,
  schema: JsonSchema,
): { ok: true; value: unknown } | { ok: false; issues: Issue[] } {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(text);
  const body = (fenced ? fenced[1] : text).trim();
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return {
      ok: false,
      issues: [{ path: "", message: `is not JSON (the answer began: ${JSON.stringify(body.slice(0, 80))})` }],
    };
  }
  const issues = validate(schema, value);
  return issues.length ? { ok: false, issues } : { ok: true, value };
}
