import type { Bus } from "../events/bus.ts";
import { follow } from "../events/event-log.ts";
import type { AgentRunStore } from "./agent-runs.ts";
import type { AgentLogEntry } from "./events.ts";

/** How long a live wait lasts before the stored log is read again (a lost pub/sub message, a Redis outage). */
const POLL_MS = 2000;

/**
 * One run's log (docs/agent-stream.md §3): stored entries with `seq > afterSeq`, then live
 * ones, ending right after the terminal (or failure) entry. Subscribes to the bus before
 * reading the log, so nothing falls between the two; a live entry already delivered is
 * dropped, and a gap in `seq` (pub/sub delivers at most once) is filled from the log
 * (`events/event-log.ts`). Every entry is delivered exactly once, in order.
 */
export function runLog(
  deps: { bus: Bus; store: AgentRunStore },
  runId: string,
  afterSeq: number,
  signal: AbortSignal,
): AsyncGenerator<AgentLogEntry> {
  const source = {
    live: (signal: AbortSignal) => deps.bus.subscribe("agentEvent", { signal, filter: (e) => e.runId === runId }),
    // The store reads a run's whole log after a seq: one read is one page.
    read: (after: number) => deps.store.events(runId, after),
    pageSize: Number.POSITIVE_INFINITY,
    seq: (e: AgentLogEntry) => e.seq,
    isLast: (e: AgentLogEntry) => e.final,
    contiguous: true,
    readAhead: true,
    pollMs: POLL_MS,
  };
  return follow(source, afterSeq, signal);
}
