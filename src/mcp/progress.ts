import type { ProgressToken, ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import type { RunEventRecord } from "../dispatch/run-record.ts";
import type { Bus } from "../events/bus.ts";
import type { Scrubber } from "../secrets/secrets.ts";

/** Follows the runs of one `tools/call` and reports their events as progress. */
export interface ProgressFollower {
  /** Reports the events of `runId` from now on. */
  follow(runId: string): void;
  /** Stops reporting (before the call answers). */
  stop(): void;
}

/**
 * `notifications/progress` from a run's events (docs/mcp.md): one notification per
 * event, `progress` counting them, `message` saying what happened; a RUN_PROGRESS says
 * what the tool reported (`ctx.onUpdate`: its message, and its progress out of its total). Best effort: events
 * reach it through the bus. Messages leave scrubbed of the runtime's secrets (the events
 * themselves are already redacted for secret-tier runs).
 */
export function followProgress(
  bus: Bus,
  secrets: Scrubber,
  token: ProgressToken,
  send: (n: ServerNotification) => Promise<void>,
): ProgressFollower {
  let count = 0;
  let stopped = false;
  const runs = new Set<string>();
  // One listener per followed run, each taking that run's events only; all removed at stop.
  const unlisten: (() => void)[] = [];
  const onEvent = (e: RunEventRecord) => {
    const message = secrets.scrubText(describe(e));
    send({ method: "notifications/progress", params: { progressToken: token, progress: ++count, message } }).catch(
      () => {},
    );
  };
  return {
    follow(runId) {
      if (stopped || runs.has(runId)) return;
      runs.add(runId);
      unlisten.push(bus.listen("runEvent", (e) => e.runId === runId && onEvent(e)));
    },
    stop() {
      stopped = true;
      for (const u of unlisten.splice(0)) u();
    },
  };
}

/** One event in words. */
function describe(e: RunEventRecord): string {
  const run = e.run;
  switch (e.type) {
    case "RUN_QUEUED":
      return `run ${run.id} of "${run.tool}" is queued`;
    case "RUN_STARTED":
      return `run ${run.id} of "${run.tool}" started`;
    case "ATTEMPT_FAILED": {
      const a = run.attempts.at(-1);
      const wait = a?.waitSeconds != null ? `; retrying in ${a.waitSeconds} s` : "";
      return `attempt ${a?.number ?? run.attempts.length} failed (${a?.errorKind ?? "INTERNAL"}: ${a?.errorMessage ?? ""})${wait}`;
    }
    case "RUN_PROGRESS": {
      const p = e.progress;
      const amount = p?.progress != null ? (p.total != null ? ` (${p.progress}/${p.total})` : ` (${p.progress})`) : "";
      return `"${run.tool}": ${p?.message ?? "progress"}${amount}`;
    }
    case "RUN_PARKED":
      return `run ${run.id} parked: waiting on an interaction`;
    case "RUN_INTERRUPTED":
      return `run ${run.id} was interrupted: its outcome is unknown`;
    case "RUN_FINISHED":
      return `run ${run.id} ${run.status}${run.errorKind ? ` (${run.errorKind})` : ""}`;
  }
}
