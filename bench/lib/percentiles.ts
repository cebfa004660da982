/** The p-th percentile (0–100) of `values`, nearest-rank; NaN for none. Sorts in place. */
export function percentile(values: number[] | Float64Array, p: number): number {
  if (!values.length) return Number.NaN;
  const sorted = values instanceof Float64Array ? values.sort() : values.sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** Rounds for reports: 3 significant decimals at most. */
export function round(n: number, digits = 2): number {
  if (!Number.isFinite(n)) return n;
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
