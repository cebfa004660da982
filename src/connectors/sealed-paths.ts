import { markerName } from "../secrets/markers.ts";
import type { Issue } from "../errors.ts";

const LITERAL = "must be an !ENV marker: a literal value would be stored";

/**
 * The values of `settings` at a kind's sealed paths (docs/connectors.md §3), each with its
 * JSON-pointer path; a segment `*` matches every key of an object (every index of an array). Absent values are skipped.
 */
export function sealedValues(settings: unknown, sealed: readonly string[]): Array<{ path: string; value: unknown }> {
  const found: Array<{ path: string; value: unknown }> = [];
  const walk = (value: unknown, segments: string[], path: string) => {
    if (value === undefined || value === null) return;
    if (!segments.length) return void found.push({ path, value });
    if (typeof value !== "object") return;
    const [head, ...rest] = segments;
    // An array is walked like an object keyed by index: `keys/*` seals every element, `keys/0` the first.
    const keys = head === "*" ? Object.keys(value) : Object.hasOwn(value, head) ? [head] : [];
    for (const k of keys) walk((value as Record<string, unknown>)[k], rest, `${path}/${k}`);
  };
  for (const pattern of sealed) walk(settings, pattern.split("/").filter(Boolean), "");
  return found;
}

/** Issues at `/settings/...` for every sealed value that is not an `!ENV` marker. */
export function sealedIssues(settings: unknown, sealed: readonly string[]): Issue[] {
  return sealedValues(settings, sealed)
    .filter((v) => markerName(v.value) === null)
    .map((v) => ({ path: `/settings${v.path}`, message: LITERAL }));
}
