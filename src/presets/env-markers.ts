import { ToolError, type Issue } from "../errors.ts";

/** A stored value `"!ENV NAME"` stands for the environment variable NAME, resolved only when used. */
const MARKER = /^!ENV\s+(.*)$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The variable a marker names, or null when `value` is not a marker. */
export function markerName(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const m = MARKER.exec(value);
  return m ? m[1].trim() : null;
}

/** Problems with markers inside `value` (a malformed variable name). */
export function markerIssues(value: unknown, path = ""): Issue[] {
  const name = markerName(value);
  if (name !== null) return NAME.test(name) ? [] : [{ path, message: `"!ENV" must be followed by a variable name like API_TOKEN (got "${name}")` }];
  if (Array.isArray(value)) return value.flatMap((v, i) => markerIssues(v, `${path}/${i}`));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => markerIssues(v, `${path}/${k}`));
  return [];
}

/** Whether `value` holds a marker anywhere. */
export function hasMarker(value: unknown): boolean {
  if (markerName(value) !== null) return true;
  if (Array.isArray(value)) return value.some(hasMarker);
  if (value && typeof value === "object") return Object.values(value).some(hasMarker);
  return false;
}

/**
 * Replaces every marker with its variable's value. A missing variable fails with a
 * message naming the variable (never a value). Each resolved value is passed to
 * `onSecret`, so the caller can keep it out of records, events and logs.
 */
export function resolveMarkers(value: unknown, owner: string, onSecret: (secret: string) => void, env: NodeJS.ProcessEnv = process.env): unknown {
  const name = markerName(value);
  if (name !== null) {
    const v = env[name];
    if (v === undefined || v === "") throw new ToolError(`${owner}: the environment variable ${name} is not set`, { kind: "INTERNAL", retryable: false });
    onSecret(v);
    return v;
  }
  if (Array.isArray(value)) return value.map((v) => resolveMarkers(v, owner, onSecret, env));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveMarkers(v, owner, onSecret, env)]));
  return value;
}
