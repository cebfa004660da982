import type { RunEvent, ToolRun } from "./documents.ts";
import { TaiGraphQLError } from "./errors.ts";

/** Options of {@link TaiClient.waitForRun}. */
export interface WaitOptions {
  /** Stops waiting: the promise rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Stops waiting after this long: the promise rejects with a `TimeoutError` DOMException. */
  timeoutMs?: number | undefined;
  /** How often `run(id)` is read once the event stream could not be kept. @default 2000 */
  pollIntervalMs?: number | undefined;
}

/** What waiting needs of the client. */
export interface WaitSources {
  run(id: string, options?: { signal?: AbortSignal }): Promise<ToolRun | null>;
  runEvents(filter: { runId: string; afterSeq: number }): AsyncIterableIterator<RunEvent, undefined> & {
    return(): Promise<unknown>;
  };
}

/** Whether a run has ended for a waiter: any status but QUEUED and RUNNING (PARKED waits for an answer). */
export function hasEnded(run: Pick<ToolRun, "status">): boolean {
  return run.status !== "QUEUED" && run.status !== "RUNNING";
}

/**
 * Resolves with the run once its status is not QUEUED or RUNNING. It follows the run's
 * events from the start (`afterSeq: 0`, so none is missed, resumed across reconnects),
 * reads the run once (it may have ended already), and, should the stream end for good,
 * polls `run(id)` instead.
 */
export async function waitForRun(sources: WaitSources, id: string, options: WaitOptions = {}): Promise<ToolRun> {
  const stop = new AbortController();
  const signals = [stop.signal, options.signal, timeoutSignal(options.timeoutMs)].filter(
    (s): s is AbortSignal => s !== undefined,
  );
  const signal = AbortSignal.any(signals);
  const events = sources.runEvents({ runId: id, afterSeq: 0 });
  try {
    return await Promise.race([
      aborted(signal),
      fromEvents(sources, events, id, signal, options.pollIntervalMs ?? 2000),
      firstRead(sources, id, signal),
    ]);
  } finally {
    stop.abort();
    void events.return();
  }
}

/** The first ended run among the run's events; should the stream fail, the polled run. */
async function fromEvents(
  sources: WaitSources,
  events: AsyncIterableIterator<RunEvent, undefined>,
  id: string,
  signal: AbortSignal,
  intervalMs: number,
): Promise<ToolRun> {
  try {
    // An event's run may carry less than the run (its result is read once it ended).
    for await (const e of events) if (hasEnded(e.run)) return await found(sources, id, signal);
  } catch (e) {
    // A refusal (forbidden, bad id) is final; a lost stream falls back to polling.
    if (e instanceof TaiGraphQLError) throw e;
  }
  return poll(sources, id, signal, intervalMs);
}

/** The run read once: an ended run resolves at once, a missing one rejects; otherwise never settles. */
async function firstRead(sources: WaitSources, id: string, signal: AbortSignal): Promise<ToolRun> {
  const run = await found(sources, id, signal);
  if (hasEnded(run)) return run;
  return new Promise<never>(() => {});
}

async function poll(sources: WaitSources, id: string, signal: AbortSignal, intervalMs: number): Promise<ToolRun> {
  for (;;) {
    await delay(intervalMs, signal);
    const run = await found(sources, id, signal);
    if (hasEnded(run)) return run;
  }
}

async function found(sources: WaitSources, id: string, signal: AbortSignal): Promise<ToolRun> {
  const run = await sources.run(id, { signal });
  if (!run)
    throw new TaiGraphQLError([{ message: `no run "${id}" the caller may see`, extensions: { code: "NOT_FOUND" } }]);
  return run;
}

function timeoutSignal(ms: number | undefined): AbortSignal | undefined {
  if (ms === undefined) return undefined;
  if (!Number.isFinite(ms) || ms < 0) throw new TypeError(`waitForRun: timeoutMs must be a number >= 0 (got ${ms})`);
  return AbortSignal.timeout(ms);
}

/** Rejects with the signal's reason once it aborts. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    const fail = () => reject(signal.reason ?? new DOMException("the wait was aborted", "AbortError"));
    if (signal.aborted) fail();
    else signal.addEventListener("abort", fail, { once: true });
  });
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => clearTimeout(t), { once: true });
  });
}
