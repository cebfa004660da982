import { REDACTED } from "../auth/tiers.ts";

/**
 * Process-wide set of secret values that must never appear in a stored record, an
 * event, a response or a log line (resolved `!ENV` values, values a body passes to
 * `ctx.redact`). Values shorter than 4 characters are not tracked: scrubbing them would
 * mangle ordinary text and they protect nothing.
 */
const secrets = new Set<string>();

export function addSecret(value: string): void {
  if (value.length >= 4) secrets.add(value);
}

/** The process-wide secret values (read-only view), for scrubbers that must see them whole. */
export function secretValues(): ReadonlySet<string> {
  return secrets;
}

/**
 * How many characters at the end of `text` could be the start of one of `values` (the
 * longest such tail, shorter than the value). A streamer holds that tail back until the
 * next chunk shows whether a secret was being split across chunks.
 */
export function secretPrefixTail(text: string, values: Iterable<string>): number {
  let keep = 0;
  for (const s of values)
    for (let k = Math.min(s.length - 1, text.length); k > keep; k--)
      if (text.endsWith(s.slice(0, k))) {
        keep = k;
        break;
      }
  return keep;
}

/** Replaces every one of `values` inside `text` with "[redacted]". */
export function scrubTextOf(text: string, values: Iterable<string>): string {
  let out = text;
  for (const s of values) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

/** Deep copy of `value` with every one of `values` inside its strings replaced. */
export function scrubValueOf<T>(value: T, values: ReadonlySet<string>): T {
  if (!values.size) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return scrubTextOf(v, values);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** Replaces every known secret inside `text` with "[redacted]". */
export function scrubText(text: string): string {
  return secrets.size ? scrubTextOf(text, secrets) : text;
}

/** Deep copy of `value` with every known secret inside its strings replaced. */
export function scrubValue<T>(value: T): T {
  return scrubValueOf(value, secrets);
}
