import type { RunScope } from "../auth/visibility.ts";
import type { RunStore } from "./run-store.ts";

/**
 * Up to `want` records tied to runs (interactions, spans) whose run is within `scope`, in
 * the order `page` reads them: pages are read until `want` visible records are found or
 * the records run out, so a list is as full as the caller's share allows.
 */
export async function visibleRecords<T extends { runId: string }>(runs: RunStore, scope: RunScope, want: number, page: (skip: number, take: number) => Promise<T[]>): Promise<T[]> {
  if (scope.all) return page(0, want);
  const out: T[] = [];
  const size = Math.max(want, 100);
  for (let skip = 0; out.length < want; skip += size) {
    const rows = await page(skip, size);
    const visible = await runs.visibleIds([...new Set(rows.map((r) => r.runId))], scope);
    for (const r of rows) if (visible.has(r.runId) && out.length < want) out.push(r);
    if (rows.length < size) break;
  }
  return out;
}
