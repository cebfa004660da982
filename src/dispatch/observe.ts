import type { Door, RunRecord } from "./run-record.ts";

/**
 * What the chokepoint reports to metrics (`ops/metrics.ts`), once per dispatch and once
 * per execution. Contract: synchronous, cheap and never throwing: it runs on every
 * dispatch, after the outcome is stored.
 */
export interface DispatchObserver {
  /** A dispatch answered with `run` after `seconds`, rejections and idempotent replays included. */
  dispatched(run: RunRecord, door: Door, seconds: number): void;
  /** An execution of `tool` made `attempts` attempts (retries are attempts − 1). */
  attempted(tool: string, attempts: number): void;
}

/** What a run's trace is started from: the dispatch as every door states it. */
export interface TracedDispatch {
  tool: string;
  door: Door;
  caller: { role: string };
  parentRunId?: string;
}

/**
 * OpenTelemetry spans of runs (`ops/tracing.ts`): one per run and one per attempt, the
 * attempt's span the active one while its body runs (so a monitor span, or a child
 * run's span, is its child). Absent when tracing is off: the chokepoint then pays one
 * `undefined` check per dispatch.
 */
export interface RunTracer {
  startRun(dispatch: TracedDispatch): RunTrace;
}

/** One run's span. Contract: `end` or `fail` is called exactly once; attempts run one after another. */
export interface RunTrace {
  /**
   * Runs attempt `n`'s body with its span active; the span ends when the body settles (or when the next attempt starts,
   * for an abandoned body).
   */
  attempt<T>(n: number, body: () => Promise<T>): Promise<T>;
  /** Ends the run's span with the run's outcome. */
  end(run: RunRecord): void;
  /** Ends the run's span when the dispatch itself threw (the store failed). */
  fail(error: unknown): void;
}
