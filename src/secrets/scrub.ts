import { REDACTED } from "../auth/tiers.ts";
import { MIN_SECRET_LENGTH } from "./forms.ts";
import { fold, mergeIntervals, replaceIntervals, type PatternIndex } from "./matcher.ts";

/**
 * A token the server makes, whole: a UUID (run, span and thread ids), an ISO-8601 instant
 * (startedAt, at, expiresAt) or a SHA-256 digest (idempotency scopes, key hashes). Such a
 * string may hold a short secret by chance: a redacted PIN "2026" must not turn every
 * later startedAt into "[redacted]-11-30T…", nor a 4-hex-digit secret every run id that
 * happens to contain it.
 */
const SERVER_TOKEN =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})|(?:sha256:)?[0-9a-f]{64})$/i;

/**
 * Secrets at least this long are replaced inside a {@link SERVER_TOKEN} too: such a token holds one only by design,
 * never by chance.
 */
const TOKEN_SAFE_LENGTH = 8;

/**
 * `text` with every match of the patterns in `indexes` (case-folded) replaced: all the
 * matches are merged (overlapping and adjacent ones are one) and each merged interval
 * becomes one "[redacted]". Inside a whole server-made token (see {@link SERVER_TOKEN}) a
 * pattern shorter than 8 characters is replaced only when it is the whole token.
 */
export function scrubTextWith(text: string, indexes: readonly PatternIndex[]): string {
  if (text.length < MIN_SECRET_LENGTH || indexes.every((i) => !i.size)) return text;
  const folded = fold(text);
  // The shape alone does not prove the server made it (a tool may answer "sha256:" + a
  // secret), so only short secrets, the ones a token holds by chance, are let through.
  const accept = SERVER_TOKEN.test(text)
    ? (length: number) => length === text.length || length >= TOKEN_SAFE_LENGTH
    : undefined;
  return replaceIntervals(text, mergeIntervals(indexes.map((i) => i.intervals(folded, accept))), REDACTED);
}

const isPlain = (v: object) => {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * A copy of `value` with every string passed through `scrubText` (object keys are names,
 * not values, and stay). Only arrays and plain objects are walked: dates, buffers and the
 * database client's sentinels pass through untouched. Unchanged parts keep their identity.
 */
export function scrubValueOf<T>(value: T, scrubText: (text: string) => string): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return scrubText(v);
    if (Array.isArray(v)) {
      const out = v.map(walk);
      return out.some((x, i) => x !== v[i]) ? out : v;
    }
    if (v && typeof v === "object" && isPlain(v)) {
      let changed = false;
      const entries = Object.entries(v).map(([k, x]) => {
        const x2 = walk(x);
        if (x2 !== x) changed = true;
        return [k, x2] as const;
      });
      if (!changed) return v;
      const out = Object.create(Object.getPrototypeOf(v)) as Record<string, unknown>;
      for (const [k, x] of entries) out[k] = x;
      return out;
    }
    return v;
  };
  return walk(value) as T;
}

/** Every string of at least {@link MIN_SECRET_LENGTH} characters inside `value`. */
export function stringsIn(value: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === "string") {
      if (v.length >= MIN_SECRET_LENGTH) out.push(v);
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(value);
  return out;
}
