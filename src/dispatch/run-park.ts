import { scrubAttempt } from "../secrets/value-fields.ts";
import type { Park } from "../interactions/park.ts";
import type { Logger } from "../log.ts";
import type { ExecutedEntry } from "./executed-entry.ts";
import type { RunSteps } from "./run-steps.ts";
import type { AttemptRecord, RunRecord } from "./run-record.ts";
import { failure } from "./run-settle.ts";
import type { RunOutcome } from "./request.ts";

/**
 * Stores a park (docs/run-lifecycle.md §5): its interactions opened, its state attached,
 * the run PARKED with a RUN_PARKED event. A park with nothing to wait on fails the run.
 */
export async function park(
  steps: RunSteps,
  entry: ExecutedEntry,
  run: RunRecord,
  p: Park,
  last: AttemptRecord | null,
  redact: boolean,
  log: Logger,
): Promise<RunOutcome> {
  const { deps, settle } = steps;
  const ids = [...(p.interactionIds ?? [])];
  for (const req of p.interactions ?? []) ids.push((await deps.interactions.open(run.id, entry.name, req)).id);
  if (!ids.length) {
    Object.assign(run, failure("INTERNAL", `"${entry.name}" returned a park with no interaction to wait on`));
    return settle.finish(run, last, redact, log);
  }
  await deps.interactions.attachState(run.id, ids, p.state);
  Object.assign(run, { status: "PARKED", finishedAt: null });
  const parked = await deps.runs.finish(
    settle.snapshot(run, redact),
    last && scrubAttempt(settle.scrubber(run.id), last),
    "RUN_PARKED",
    settle.rescrubOf(run.id),
  );
  settle.publish(parked);
  // An answer may have arrived before the park was stored (a fast callback).
  if (await deps.interactions.readyToResume(run.id)) return steps.resume(run.id);
  return { run: parked.run, output: { ...run } };
}
