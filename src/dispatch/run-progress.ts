import { scrubProgress } from "../secrets/value-fields.ts";
import { REDACTED } from "../auth/tiers.ts";
import type { Logger } from "../log.ts";
import { boundUpdate, PROGRESS_BOUNDS, type RunProgress } from "../tools/tool-update.ts";
import type { RunEventRecord, RunRecord } from "./run-record.ts";
import type { RunSettle } from "./run-settle.ts";
import type { DispatchDeps } from "./request.ts";

/** The `ctx.onUpdate` of one execution of a run, and its end. */
export interface ProgressChannel {
  /** Checks and bounds an update (throws on a malformed one), then records it, rate-limited. Contract: never waits. */
  update(update: unknown): void;
  /** Ends the channel: a pending update is dropped (the run's end supersedes it), later ones are ignored. */
  close(): void;
}

/**
 * Turns a body's updates into RUN_PROGRESS events (docs/tool-authoring.md §5): stored in
 * the run log with a seq while the run is RUNNING, then published like every run event,
 * and handed to `onProgress` (the dispatching agent's stream). Bounded: at most one event
 * per {@link PROGRESS_BOUNDS.intervalMs} (a newer update replaces the pending one) and
 * {@link PROGRESS_BOUNDS.perRun} per execution. A secret-tier run's message and details
 * are "[redacted]", like its result; every update is scrubbed of known secrets.
 */
export function progressChannel(
  deps: Pick<DispatchDeps, "runs">,
  settle: RunSettle,
  run: RunRecord,
  redact: boolean,
  log: Logger,
  onProgress?: (event: RunEventRecord) => void,
  bounds: { intervalMs: number; perRun: number } = PROGRESS_BOUNDS,
): ProgressChannel {
  let closed = false;
  let written = 0;
  let lastAt = -Infinity;
  let pending: RunProgress | null = null;
  let timer: NodeJS.Timeout | null = null;
  let warned = false;

  const write = (progress: RunProgress) => {
    lastAt = performance.now();
    written++;
    const scrubbed = scrubProgress(
      settle.scrubber(run.id),
      redact
        ? {
            ...progress,
            message: progress.message === null ? null : REDACTED,
            details: progress.details === null ? null : REDACTED,
          }
        : progress,
    );
    deps.runs
      .progress(settle.snapshot(run, redact), scrubbed)
      .then((event) => {
        if (!event) return;
        settle.publish(event);
        onProgress?.(event);
      })
      .catch((e: unknown) =>
        log.warn("storing a progress update failed; it is dropped", { error: (e as Error).message }),
      );
  };
  const flush = () => {
    timer = null;
    if (closed || !pending) return;
    const next = pending;
    pending = null;
    write(next);
  };

  return {
    update(update) {
      const progress = boundUpdate(update);
      if (closed) return;
      if (written >= bounds.perRun && !pending) {
        if (!warned) log.warn(`more than ${bounds.perRun} progress updates in one run; later ones are dropped`);
        warned = true;
        return;
      }
      const wait = lastAt + bounds.intervalMs - performance.now();
      if (wait <= 0 && !timer) return write(progress);
      pending = progress;
      timer ??= setTimeout(flush, Math.max(wait, 0));
    },
    close() {
      closed = true;
      pending = null;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
