import type { Bus } from "../events/bus.ts";
import type { AgentRunStore } from "./agent-runs.ts";
import type { AgentLogEntry } from "./events.ts";

/** How long a live wait lasts before the stored log is read again (a lost pub/sub message, a Redis outage). */
const POLL_MS = 2000;

/**
 * One run's log (docs/agent-stream.md §3): stored entries with `seq > afterSeq`, then live
 * ones, ending right after the terminal (or failure) entry. Subscribes to the bus before
 * reading the log, so nothing falls between the two; a live entry already delivered is
 * dropped, and a gap in `seq` (pub/sub delivers at most once) is filled from the log.
 * Every entry is delivered exactly once, in order.
 */
export async function* runLog(
  deps: { bus: Bus; store: AgentRunStore },
  runId: string,
  afterSeq: number,
  signal: AbortSignal,
): AsyncGenerator<AgentLogEntry> {
  const live = deps.bus.subscribe("agentEvent", { signal, filter: (e) => e.runId === runId });
  let last = afterSeq;
  const fromLog = async function* (): AsyncGenerator<AgentLogEntry, boolean> {
    for (const e of await deps.store.events(runId, last)) {
      if (e.seq !== last + 1) break;
      last = e.seq;
      yield e;
      if (e.final) return true;
    }
    return false;
  };
  try {
    if (yield* fromLog()) return;
    let pending = live.next();
    for (;;) {
      if (signal.aborted) return;
      let timer: NodeJS.Timeout | undefined;
      const tick = new Promise<"tick">((r) => {
        timer = setTimeout(() => r("tick"), POLL_MS);
      });
      const r = await Promise.race([pending, tick]);
      clearTimeout(timer);
      if (r === "tick") {
        if (yield* fromLog()) return;
        continue;
      }
      if (r.done) return;
      pending = live.next();
      const e = r.value;
      if (e.seq <= last) continue;
      if (e.seq > last + 1 && (yield* fromLog())) return;
      if (e.seq !== last + 1) continue;
      last = e.seq;
      yield e;
      if (e.final) return;
    }
  } finally {
    await live.return?.();
  }
}
