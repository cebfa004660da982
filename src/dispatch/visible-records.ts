import type { Caller } from "../auth/roles.ts";
import { maySeeRun, type RunScope } from "../auth/visibility.ts";
import type { RunStore } from "./run-store.ts";

/**
 * Up to `want` records tied to runs (interactions, spans) whose run is within `scope`, in
 * the order `page` reads them: pages are read until `want` visible records are found or
 * the records run out, so a list is as full as the caller's share allows.
 */
export async function visibleRecords<T extends { runId: string }>(
  runs: RunStore,
  scope: RunScope,
  want: number,
  page: (skip: number, take: number) => Promise<T[]>,
): Promise<T[]> {
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

/**
 * The records of a live `stream` tied to runs (spans, interactions) whose run `caller`
 * may see (`auth/visibility.ts`). Each run is looked up once; the verdicts of up to
 * 1,000 runs are remembered, then forgotten together.
 */
export async function* visibleStream<T extends { runId: string }>(
  runs: Pick<RunStore, "get">,
  caller: Caller,
  stream: AsyncIterable<T>,
): AsyncGenerator<T> {
  const seen = new Map<string, boolean>();
  for await (const record of stream) {
    let visible = seen.get(record.runId);
    if (visible === undefined) {
      const run = await runs.get(record.runId);
      visible = Boolean(run && maySeeRun(caller, run));
      if (seen.size > 1000) seen.clear();
      seen.set(record.runId, visible);
    }
    if (visible) yield record;
  }
}
