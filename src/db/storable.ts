import { createHash } from "node:crypto";

/**
 * Values as both databases can store them. PostgreSQL refuses a NUL character in `text`
 * ("invalid byte sequence for encoding UTF8: 0x00") and in `jsonb` strings ("unsupported
 * Unicode escape sequence"), and refuses lone UTF-16 surrogates in `jsonb`; SQLite takes
 * all three. Every write of caller- or tool-supplied text goes through these helpers, so
 * a run stores (and reads back) the same thing on either database instead of failing on
 * one of them.
 */

// The NUL character is what these patterns are for (PostgreSQL text cannot hold it).
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /[\u0000\uD800-\uDFFF]/;
// eslint-disable-next-line no-control-regex
const REPLACE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `s` with NUL characters and lone surrogates replaced by U+FFFD. */
export function storableText(s: string): string {
  if (!UNSTORABLE.test(s)) return s;
  return s.replace(REPLACE, "\uFFFD");
}

/** A nullable text column's value, made storable. */
export function storableTextOrNull(s: string | null | undefined): string | null {
  return s === null || s === undefined ? null : storableText(s);
}

/**
 * A JSON value with every string (keys included) made storable. Returns the same object
 * when nothing needed replacing, so the common case allocates nothing.
 */
export function storableJson<T>(value: T): T {
  return fix(value) as T;
}

function fix(v: unknown): unknown {
  if (typeof v === "string") return storableText(v);
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const f = fix(v[i]);
      if (f !== v[i]) (out ??= v.slice())[i] = f;
    }
    return out ?? v;
  }
  if (v instanceof Date) return v;
  let out: Record<string, unknown> | null = null;
  for (const [k, item] of Object.entries(v)) {
    const fk = storableText(k);
    const fv = fix(item);
    if (fk !== k || fv !== item) {
      out ??= { ...(v as Record<string, unknown>) };
      if (fk !== k) delete out[k];
      out[fk] = fv;
    }
  }
  return out ?? v;
}

// eslint-disable-next-line no-control-regex
const UNSTORABLE_AT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with a text neither database can store, or null when it is storable. */
function unstorableReason(s: string): string | null {
  if (!UNSTORABLE.test(s)) return null;
  const m = UNSTORABLE_AT.exec(s);
  if (!m) return null;
  return m[0] === "\u0000"
    ? "contains a NUL character (U+0000), which cannot be stored"
    : "contains a lone UTF-16 surrogate (not valid Unicode), which cannot be stored";
}

/**
 * One issue per string (or object key) in `value` that neither database can store (a NUL
 * character, a lone surrogate), each naming its JSON-pointer path under `path`. Writes of
 * caller-supplied text that must be stored as given (presets, manifests, thread
 * messages, answers, dispatch inputs) check this first and refuse with INVALID_INPUT /
 * BAD_USER_INPUT, identically on SQLite and PostgreSQL (docs/security-model.md §6).
 */
export function unstorableIssues(value: unknown, path = ""): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  const walk = (v: unknown, at: string, depth: number): void => {
    if (typeof v === "string") {
      const reason = unstorableReason(v);
      if (reason) issues.push({ path: at, message: reason });
    } else if (v !== null && typeof v === "object" && !(v instanceof Date) && depth < 200 && issues.length < 50) {
      if (Array.isArray(v)) v.forEach((item, i) => walk(item, `${at}/${i}`, depth + 1));
      else
        for (const [k, item] of Object.entries(v)) {
          // The path names the key as both databases can show it (U+FFFD for what they cannot).
          const p = `${at}/${storableText(k).replace(/~/g, "~0").replace(/\//g, "~1")}`;
          const reason = unstorableReason(k);
          if (reason) issues.push({ path: p, message: `the key ${reason}` });
          walk(item, p, depth + 1);
        }
    }
  };
  walk(value, path, 0);
  return issues;
}

/**
 * The stored form of an idempotency scope: its SHA-256. The scope joins caller, tool and
 * the caller's key with NUL separators, which PostgreSQL cannot store, and a caller's key
 * may be long enough to overflow a btree index entry; a digest is fixed-size and unique.
 */
export function scopeKey(scope: string): string {
  return `sha256:${createHash("sha256").update(scope, "utf8").digest("hex")}`;
}
