/**
 * The queue of background runs (docs/run-lifecycle.md §11.3): which instance executes a
 * QUEUED run, and when. It carries run ids only; the run log stays the truth about the run
 * (its status, owner, attempts, events). Two engines implement it: pg-boss on PostgreSQL
 * (`pgboss-queue.ts`) and the embedded queue on SQLite (`embedded-queue.ts`).
 */
export interface RunQueue {
  /** The engine's name, for logs and metrics ("pg-boss", "embedded"). */
  readonly engine: string;
  /**
   * Asks some instance to execute the QUEUED run `runId`. Idempotent per run id while a job
   * for it waits. Resolves once the job is durable (or, embedded, once the run is noted).
   */
  enqueue(runId: string): Promise<void>;
  /**
   * Starts taking jobs: `work(runId)` is called for each, at most `concurrency` at once on
   * this instance; a job is done when `work` settles (it never rejects for a run's failure).
   */
  start(work: (runId: string) => Promise<void>, concurrency: number): Promise<void>;
  /** Stops taking new jobs; those being worked on continue. */
  pause(): Promise<void>;
  /** How many jobs wait to be taken (all instances), or null when the engine cannot tell cheaply. */
  depth(): Promise<number | null>;
  /** Stops and releases the engine's resources (after `pause`, once the work in flight settled). */
  close(): Promise<void>;
}
