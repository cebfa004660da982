import type { Bus } from "../events/bus.ts";
import type { RunRecord } from "./run-record.ts";
import type { RunStore } from "./run-store.ts";

/**
 * Asks whichever instance holds RUNNING run `runId` to cancel it (docs/run-lifecycle.md §4) and resolves with the run
 * once it has ended; `again` (the run left RUNNING meanwhile) when the request could not be stored, to be cancelled as
 * what it is now. Stored first: the holder reads it after its next heartbeat, whatever becomes of the bus; a failed
 * write leaves the bus to carry it. Redis delivers at most once, so the message is repeated every second until the
 * run ends (or its holder is found gone and the run failed): one lost message cannot hang the caller.
 */
export async function askHolder(
  deps: { runs: Pick<RunStore, "requestCancel">; bus: Pick<Bus, "publish"> },
  runId: string,
  awaitFinal: (runId: string) => Promise<RunRecord>,
): Promise<RunRecord | "again"> {
  if ((await deps.runs.requestCancel(runId).catch(() => true)) === false) return "again";
  const ask = () => deps.bus.publish("runCancel", { runId });
  ask();
  const again = setInterval(ask, 1000);
  try {
    return await awaitFinal(runId);
  } finally {
    clearInterval(again);
  }
}
