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
 * live ones; an event is delivered once even when it is both replayed and live.
 * Subscribes to the live bus before reading the log, so nothing falls between the two.
 * Only events of runs `caller` may see are delivered (`auth/visibility.ts`), replayed or live.
 */
export async function* replayThenLive(rt: Pick<Runtime, "bus" | "runs">, filter: RunEventFilter, afterSeq: number | null, signal: AbortSignal, caller: Caller): AsyncGenerator<RunEventRecord> {
  const scope = runScope(caller);
  const matches = (e: RunEventRecord) => (!filter.runId || e.runId === filter.runId) && (!filter.tool || e.tool === filter.tool) && maySeeRun(caller, e.run);
  const live = rt.bus.subscribe("runEvent", { signal, filter: matches });
  const replayed = new Set<number>();
  try {
    if (afterSeq !== null) {
      let cursor = afterSeq;
      for (;;) {
        const page = await rt.runs.events(filter, cursor, 500, scope);
        for (const e of page) {
          if (signal.aborted) return;
          replayed.add(e.seq);
          yield e;
        }
        if (page.length < 500) break;
        cursor = page[page.length - 1].seq;
      }
    }
    for await (const e of live) {
      if (replayed.size && replayed.delete(e.seq)) continue;
      if (afterSeq !== null && e.seq <= afterSeq) continue;
      yield e;
    }
  } finally {
    await live.return?.();
  }
}
