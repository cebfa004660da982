import type { Caller } from "../auth/roles.ts";
import { maySeeRun, runScope } from "../auth/visibility.ts";
import type { Runtime } from "../runtime.ts";
import type { RunEventRecord } from "./run-record.ts";

/** Which run events a subscriber wants. */
export interface RunEventFilter {
  runId?: string;
  tool?: string;
}

/**
 * The run event stream: with `afterSeq`, persisted events after it (oldest first), then
 * live ones from the ordered feed (`runlog/ordered-feed.ts`), so every event is delivered
 * once, in seq order, with no gap, whichever instances wrote it. Subscribes to the feed
 * before reading the log, so nothing falls between the two.
 * Only events of runs `caller` may see are delivered (`auth/visibility.ts`), replayed or live.
 */
export async function* replayThenLive(
  rt: Pick<Runtime, "runFeed" | "runs">,
  filter: RunEventFilter,
  afterSeq: number | null,
  signal: AbortSignal,
  caller: Caller,
): AsyncGenerator<RunEventRecord> {
  const scope = runScope(caller);
  const matches = (e: RunEventRecord) =>
    (!filter.runId || e.runId === filter.runId) && (!filter.tool || e.tool === filter.tool) && maySeeRun(caller, e.run);
  const live = rt.runFeed.subscribe({ signal, filter: matches });
  let cursor = afterSeq ?? 0;
  try {
    if (afterSeq !== null) {
      for (;;) {
        const page = await rt.runs.events(filter, cursor, 500, scope);
        for (const e of page) {
          if (signal.aborted) return;
          cursor = e.seq;
          yield e;
        }
        if (page.length < 500) break;
      }
    }
    // The feed delivers in seq order: what the replay already gave is everything up to `cursor`.
    for await (const e of live) {
      if (e.seq <= cursor) continue;
      cursor = e.seq;
      yield e;
    }
  } finally {
    await live.return?.();
  }
}
