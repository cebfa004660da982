import type { Caller } from "../auth/roles.ts";
import { maySeeRun, runScope } from "../auth/visibility.ts";
import { follow, type EventLogSource } from "../events/event-log.ts";
import type { OrderedRunEvents } from "../runlog/ordered-feed.ts";
import type { RunStore } from "./run-store.ts";
import type { RunEventRecord } from "./run-record.ts";

/** Where run events come from: the ordered live feed and the stored log. */
export interface RunEventDeps {
  runFeed: OrderedRunEvents;
  runs: RunStore;
}

/** Which run events a subscriber wants. */
export interface RunEventFilter {
  runId?: string;
  tool?: string;
}

/**
 * The run event stream: with `afterSeq`, persisted events after it (oldest first), then
 * live ones from the ordered feed (`runlog/ordered-feed.ts`), so every event is delivered
 * once, in seq order, with no gap, whichever instances wrote it. Subscribes to the feed
 * before reading the log, so nothing falls between the two (`events/event-log.ts`).
 * Only events of runs `caller` may see are delivered (`auth/visibility.ts`), replayed or live.
 */
export function replayThenLive(
  rt: RunEventDeps,
  filter: RunEventFilter,
  afterSeq: number | null,
  signal: AbortSignal,
  caller: Caller,
): AsyncGenerator<RunEventRecord> {
  return follow(runEventSource(rt, filter, caller), afterSeq, signal);
}

/**
 * The run events `caller` may see that match `filter`. Not contiguous: the feed is in seq order with no gap, but a
 * filtered stream skips the seqs of other runs and tools.
 */
function runEventSource(rt: RunEventDeps, filter: RunEventFilter, caller: Caller): EventLogSource<RunEventRecord> {
  const scope = runScope(caller);
  const matches = (e: RunEventRecord) =>
    (!filter.runId || e.runId === filter.runId) && (!filter.tool || e.tool === filter.tool) && maySeeRun(caller, e.run);
  return {
    live: (signal) => rt.runFeed.subscribe({ signal, filter: matches }),
    // Never past the feed's settled position: a stored event beyond an unsettled gap is the feed's to deliver, in its
    // place (docs/run-lifecycle.md §9 "Replay then live").
    read: async (afterSeq, limit) => rt.runs.events(filter, afterSeq, limit, scope, await rt.runFeed.settledThrough()),
    seq: (e) => e.seq,
  };
}
