/**
 * How deep JSON input may nest (docs/security-model.md §6). Deeper values are refused
 * before anything recursive reads them: past ~128 levels PostgreSQL's and Prisma's JSON
 * handling fail with an internal error, and recursive walkers (schema validation, the
 * secrets scrubber) would risk the stack.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Where `value` nests deeper than `max` levels (each object or array is one level), as a
 * JSON Pointer to the first too-deep value; null when it does not. Iterative, so any
 * depth is measured without recursion.
 */
export function tooDeepAt(value: unknown, max: number = MAX_JSON_DEPTH): string | null {
  const stack: Array<{ v: unknown; depth: number; path: string }> = [{ v: value, depth: 1, path: "" }];
  while (stack.length) {
    const { v, depth, path } = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > max) return path || "/";
    for (const [k, child] of Object.entries(v)) {
      if (child !== null && typeof child === "object")
        stack.push({ v: child, depth: depth + 1, path: `${path}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}` });
    }
  }
  return null;
}

/** The refusal message for a value too deep at `path`. */
export function tooDeepMessage(path: string, max: number = MAX_JSON_DEPTH): string {
  const shown = path.length > 60 ? `${path.slice(0, 60)}…` : path;
  return `JSON input is nested deeper than ${max} levels (at ${shown})`;
}

/** What a run refused for too-deep input stores in place of that input. */
export const TOO_DEEP = "[refused: nested too deep]";
