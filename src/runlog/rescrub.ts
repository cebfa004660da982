import { storableJson } from "../db/storable.ts";
import type { RunRecord } from "../dispatch/run-record.ts";
import type { Scrubber } from "../secrets/secrets.ts";
import { scrubProgress, scrubRun } from "../secrets/value-fields.ts";
import type { RunProgress } from "../tools/tool-update.ts";

/**
 * A late `ctx.redact` (docs/security-model.md §3): what a run stored before its body
 * redacted a value is read back and rewritten scrubbed, by both databases' run-log writers
 * (`sqlite-log.ts`, `pg-log.ts`), inside their transaction. Only value fields are
 * scrubbed (the run's input, content, data, details and error messages, an event's
 * progress, the question of an interaction it opened): ids, enums, names and times are
 * never rewritten.
 */

/** The columns of a run's stored rows that may hold a value, JSON columns as text. */
export interface StoredValues {
  run: RunValues | null;
  events: { seq: number; snapshot: string }[];
  attempts: { id: number; errorMessage: string | null }[];
  interactions: { id: string; question: string }[];
}

export interface RunValues {
  input: string | null;
  content: string;
  data: string | null;
  details: string | null;
  errorMessage: string | null;
}

/** The rows to write back: only those that changed. */
export interface Rewrites {
  run: RunValues | null;
  events: { seq: number; snapshot: string }[];
  attempts: { id: number; errorMessage: string | null }[];
  interactions: { id: string; question: string }[];
}

/** The changed rows of `stored`, scrubbed with `scrubber`. */
export function rescrubbed(stored: StoredValues, scrubber: Scrubber): Rewrites {
  const json = (text: string | null, scrub: (v: unknown) => unknown): string | null => {
    if (text === null) return null;
    const value = JSON.parse(text) as unknown;
    const clean = scrub(value);
    return clean === value ? text : JSON.stringify(storableJson(clean));
  };
  const text = (t: string | null) => (t === null ? null : scrubber.scrubText(t));
  let run: RunValues | null = null;
  if (stored.run) {
    const r = stored.run;
    const parse = (t: string | null) => (t === null ? null : (JSON.parse(t) as unknown));
    const record = {
      input: parse(r.input),
      content: parse(r.content),
      data: parse(r.data),
      details: parse(r.details),
      errorMessage: r.errorMessage,
      attempts: [],
    } as unknown as RunRecord;
    const clean = scrubRun(scrubber, record);
    // Compared as parsed JSON: PostgreSQL hands jsonb back in its own layout, never the text that was written.
    const back = (v: unknown, was: string | null) =>
      was === null ? null : JSON.stringify(v) === JSON.stringify(parse(was)) ? was : JSON.stringify(storableJson(v));
    const next: RunValues = {
      input: back(clean.input, r.input),
      content: back(clean.content, r.content)!,
      data: back(clean.data, r.data),
      details: back(clean.details, r.details),
      errorMessage: clean.errorMessage,
    };
    if ((Object.keys(next) as (keyof RunValues)[]).some((k) => next[k] !== r[k])) run = next;
  }
  return {
    run,
    events: stored.events
      .map((e) => ({ seq: e.seq, snapshot: json(e.snapshot, (s) => scrubSnapshot(s, scrubber))! }))
      .filter((e, i) => e.snapshot !== stored.events[i].snapshot),
    attempts: stored.attempts
      .map((a) => ({ id: a.id, errorMessage: text(a.errorMessage) }))
      .filter((a, i) => a.errorMessage !== stored.attempts[i].errorMessage),
    interactions: stored.interactions
      .map((q) => ({ id: q.id, question: scrubber.scrubText(q.question) }))
      .filter((q, i) => q.question !== stored.interactions[i].question),
  };
}

/** How many rows `rewrites` writes. */
export const rewriteCount = (w: Rewrites) =>
  (w.run ? 1 : 0) + w.events.length + w.attempts.length + w.interactions.length;

/**
 * A stored event snapshot (the run, with the update for RUN_PROGRESS: `rows.ts`) with its
 * value fields scrubbed by the one definition of them (`secrets/value-fields.ts`); the
 * same object when none changed.
 */
function scrubSnapshot(snapshot: unknown, scrubber: Scrubber): unknown {
  if (!snapshot || typeof snapshot !== "object" || Array.isArray(snapshot)) return snapshot;
  const s = snapshot as RunRecord & { progress?: RunProgress };
  const out: Record<string, unknown> = {
    ...scrubRun(scrubber, s),
    ...(s.progress ? { progress: scrubProgress(scrubber, s.progress) } : {}),
  };
  return JSON.stringify(out) === JSON.stringify(s) ? snapshot : out;
}
