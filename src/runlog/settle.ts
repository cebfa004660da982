import { setTimeout as delay } from "node:timers/promises";

/**
 * Settling a stretch of the run event log (docs/run-lifecycle.md §9 "Sequence and commit order"): waiting until the
 * event-log writers registered at one moment have all ended, so that a later read of the log holds every seq below a
 * known committed one that will ever exist.
 */

/** What settling needs of the store: the writers registered right now (absent: one writer at a time, SQLite). */
export interface WriterList {
  writers?(): Promise<string[]>;
}

/** The first and longest pause between two looks at the registered writers (ms). */
const FIRST_PAUSE_MS = 1;
const LONGEST_PAUSE_MS = 50;

/**
 * Resolves once none of `writers` is registered any more, or `stop()` turns true (checked between looks). Writers
 * registered since are not waited for: they draw only seqs above what the caller knows committed.
 */
export async function writersEnded(store: WriterList, writers: readonly string[], stop: () => boolean): Promise<void> {
  if (!store.writers) return;
  const open = new Set(writers);
  for (let pause = FIRST_PAUSE_MS; open.size && !stop(); pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
    await delay(pause);
    const now = new Set(await store.writers());
    for (const w of open) if (!now.has(w)) open.delete(w);
  }
}

/**
 * The highest stored seq, once settled: every seq up to it is committed or will never exist. It is read first and the
 * writers listed after (a writer holding a lower seq registered before that seq's successor committed, so it is
 * either listed or over), then those writers are waited out.
 */
export async function settledLast(
  store: WriterList & { lastSeq(): Promise<number> },
  stop: () => boolean,
): Promise<number> {
  const last = await store.lastSeq();
  if (store.writers) await writersEnded(store, await store.writers(), stop);
  return last;
}
