import { failureLog } from "../failure-log.ts";
import type { Logger } from "../log.ts";
import type { RunQueue } from "./run-queue.ts";

/** What {@link QueueWorkers} needs. */
export interface QueueWorkersDeps {
  queue: RunQueue;
  /** Executes one queued run here (`Dispatcher.executeQueued`). */
  work: (runId: string) => Promise<void>;
  concurrency: number;
  /**
   * The runs QUEUED since before `before` (a job lost between a store and its send, a re-drive whose send failed): sent
   * again every `resendMs`, which the engine takes once per run (pg-boss: the run id is the singleton key).
   */
  waitingSince?: (before: Date) => Promise<string[]>;
  resendMs?: number;
  log: Logger;
}

/**
 * This instance's workers of background runs (docs/run-lifecycle.md §11.2–11.3), a cluster duty: `start` takes queue
 * work, `stop` takes no more (work in flight continues and drains with the dispatcher).
 */
export class QueueWorkers {
  readonly name = "background run workers";
  private timer: NodeJS.Timeout | null = null;

  /** A database outage fails every resend alike: one line per 10 s counting them. */
  private readonly failures: ReturnType<typeof failureLog>;

  constructor(private readonly deps: QueueWorkersDeps) {
    this.failures = failureLog(deps.log);
  }

  async start(): Promise<void> {
    const { queue, work, concurrency, waitingSince, resendMs = 30_000 } = this.deps;
    await queue.start(work, concurrency);
    if (!waitingSince) return;
    this.timer = setInterval(() => void this.resend(waitingSince, resendMs), resendMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.deps.queue.pause();
  }

  private async resend(waitingSince: (before: Date) => Promise<string[]>, resendMs: number): Promise<void> {
    try {
      for (const id of await waitingSince(new Date(Date.now() - resendMs))) await this.deps.queue.enqueue(id);
    } catch (e) {
      this.failures.failed("warn", "resending waiting runs to the queue failed; it tries again", {
        error: (e as Error).message,
      });
    }
  }
}
