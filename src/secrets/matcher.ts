import { MIN_SECRET_LENGTH } from "./forms.ts";

/** A half-open range `[start, end)` of a text that holds a secret. */
export type Interval = readonly [start: number, end: number];

const lowerOf = new Map<number, number>();

/**
 * The case-folded code unit: its lower case when that is one code unit, else itself (folding never changes a length).
 */
function foldUnit(c: number): number {
  if (c < 128) return c >= 65 && c <= 90 ? c + 32 : c;
  let l = lowerOf.get(c);
  if (l === undefined) {
    const lower = String.fromCharCode(c).toLowerCase();
    l = lower.length === 1 ? lower.charCodeAt(0) : c;
    lowerOf.set(c, l);
  }
  return l;
}

/** A character outside printable ASCII (and tab, line feed, carriage return): the text takes the slow path. */
const UNUSUAL = /[^\t\n\r\x20-\x7e]/;

/** `text` case-folded code unit by code unit, so every index in it is the same index in `text`. */
export function fold(text: string): string {
  if (!UNUSUAL.test(text)) return text.toLowerCase();
  const out = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = foldUnit(text.charCodeAt(i));
  return Buffer.from(out.buffer).toString("utf16le");
}

/**
 * The index key of the 4 code units of `folded` at `at` (a polynomial hash, rolled along a text by {@link rollKey}).
 */
function keyAt(folded: string, at: number): number {
  let h = 0;
  for (let i = at; i < at + MIN_SECRET_LENGTH; i++) h = (Math.imul(h, 31) + folded.charCodeAt(i)) | 0;
  return h;
}

/** 31³: the weight of the code unit leaving the key. */
const LEAVING = 29_791;

/** The key at `at + 1` from the key at `at`. */
const rollKey = (folded: string, at: number, key: number) =>
  (Math.imul((key - Math.imul(folded.charCodeAt(at), LEAVING)) | 0, 31) + folded.charCodeAt(at + MIN_SECRET_LENGTH)) |
  0;

/** Slots of the counting filter in front of the buckets: most places of a text hit an empty slot and skip the map. */
const FILTER_BITS = 16;
const slotOf = (key: number) => (key ^ (key >>> FILTER_BITS)) & ((1 << FILTER_BITS) - 1);

/**
 * Case-folded patterns, indexed by the key of their first 4 characters, with a reference
 * count each so several secrets may share one. Finding every match in a text costs one
 * look-up per position plus a check of the few patterns under that key: the cost depends
 * on the text's length and its matches, not on how many patterns are known. Adding or
 * removing a pattern touches only its own bucket. (Values made to share their first 4
 * characters share a bucket, and a text repeating those 4 characters pays for checking
 * each of them at each place: still no worse than one pass per known value.)
 *
 * Hand-written rather than an Aho–Corasick package: those build an automaton once from
 * the whole pattern list (adding or evicting one secret would rebuild it) and report
 * matched words rather than the intervals the scrubber merges.
 */
export class PatternIndex {
  private readonly buckets = new Map<number, string[]>();
  /** Per slot, how many buckets' keys fall in it (made with the first pattern). */
  private filter: Uint16Array | null = null;
  private readonly counts = new Map<string, number>();
  /** How many patterns have each length (for {@link longest}). */
  private readonly lengths = new Map<number, number>();
  private max = 0;

  get size(): number {
    return this.counts.size;
  }

  /** The length of the longest pattern (0 when there is none). */
  longest(): number {
    return this.max;
  }

  add(pattern: string): void {
    const p = fold(pattern);
    if (p.length < MIN_SECRET_LENGTH) return;
    const n = this.counts.get(p) ?? 0;
    this.counts.set(p, n + 1);
    if (n) return;
    const key = keyAt(p, 0);
    const bucket = this.buckets.get(key);
    if (bucket) bucket.push(p);
    else {
      this.buckets.set(key, [p]);
      const filter = (this.filter ??= new Uint16Array(1 << FILTER_BITS));
      // A full slot stays full: it only ever sends a place on to the map.
      if (filter[slotOf(key)] < 0xffff) filter[slotOf(key)]++;
    }
    this.lengths.set(p.length, (this.lengths.get(p.length) ?? 0) + 1);
    this.max = Math.max(this.max, p.length);
  }

  remove(pattern: string): void {
    const p = fold(pattern);
    const n = this.counts.get(p);
    if (!n) return;
    if (n > 1) return void this.counts.set(p, n - 1);
    this.counts.delete(p);
    const key = keyAt(p, 0);
    const bucket = this.buckets.get(key)!.filter((q) => q !== p);
    if (bucket.length) this.buckets.set(key, bucket);
    else {
      this.buckets.delete(key);
      if (this.filter![slotOf(key)] < 0xffff) this.filter![slotOf(key)]--;
    }
    const left = this.lengths.get(p.length)! - 1;
    if (left) this.lengths.set(p.length, left);
    else this.lengths.delete(p.length);
    if (p.length === this.max) this.max = Math.max(0, ...this.lengths.keys());
  }

  /**
   * Where patterns occur in `folded` (a text passed through {@link fold}), merged: overlapping
   * and adjacent matches are one interval. `accept` may refuse a pattern (by its length).
   */
  intervals(folded: string, accept: (length: number) => boolean = () => true): Interval[] {
    const out: [number, number][] = [];
    if (!this.buckets.size) return out;
    const filter = this.filter!;
    for (
      let i = 0, key = keyAt(folded, 0);
      i + MIN_SECRET_LENGTH <= folded.length;
      key = rollKey(folded, i, key), i++
    ) {
      if (!filter[slotOf(key)]) continue;
      const bucket = this.buckets.get(key);
      if (!bucket) continue;
      let end = -1;
      for (const p of bucket) if (i + p.length > end && accept(p.length) && folded.startsWith(p, i)) end = i + p.length;
      if (end < 0) continue;
      const last = out[out.length - 1];
      if (last && i <= last[1]) last[1] = Math.max(last[1], end);
      else out.push([i, end]);
    }
    return out;
  }
}

/** `lists` of intervals (each sorted and merged) as one sorted, merged list. */
export function mergeIntervals(lists: readonly Interval[][]): Interval[] {
  const nonEmpty = lists.filter((l) => l.length);
  if (nonEmpty.length <= 1) return nonEmpty[0] ?? [];
  const all = nonEmpty.flat().sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [s, e] of all) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** `text` with each of `intervals` (sorted, merged) replaced by `replacement`. */
export function replaceIntervals(text: string, intervals: readonly Interval[], replacement: string): string {
  if (!intervals.length) return text;
  let out = "";
  let at = 0;
  for (const [s, e] of intervals) {
    out += text.slice(at, s) + replacement;
    at = e;
  }
  return out + text.slice(at);
}
