import type { Logger } from "../log.ts";
import type { RunQueue } from "./run-queue.ts";

/** What the embedded queue needs: the runs waiting QUEUED in the store, oldest first. */
export interface EmbeddedQueueOptions {
  /** Up to `take` QUEUED run ids, oldest first. */
  waiting(take: number): Promise<string[]>;
  log: Logger;
  /** How often the store is looked at for runs queued elsewhere (another process, a re-drive). @default 2000 */
  pollMs?: number;
}

/**
 * The embedded queue (docs/run-lifecycle.md §11.3), for SQLite: the QUEUED rows are the queue. This process works
 * them in order of queueing, at most `concurrency` at once; at start, and then every `pollMs`, it takes up the runs
 * left QUEUED in the store, so a background run survives a restart of the one process. A run taken twice (by two
 * processes on one file) is executed once: the claim is a compare-and-set on the run (`dispatch/run-queued.ts`).
 */
export class EmbeddedQueue implements RunQueue {
  readonly engine = "embedded";
  private readonly fifo: string[] = [];
  /** Waiting or being worked here. */
  private readonly known = new Set<string>();
  private readonly active = new Set<Promise<void>>();
  private work: ((runId: string) => Promise<void>) | null = null;
  private concurrency = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly opts: EmbeddedQueueOptions) {}

  enqueue(runId: string): Promise<void> {
    if (!this.known.has(runId)) {
      this.known.add(runId);
      this.fifo.push(runId);
    }
    this.pump();
    return Promise.resolve();
  }

  async start(work: (runId: string) => Promise<void>, concurrency: number): Promise<void> {
    this.work = work;
    this.concurrency = concurrency;
    await this.scan();
    this.timer = setInterval(() => void this.scan(), this.opts.pollMs ?? 2000);
    this.timer.unref();
  }

  pause(): Promise<void> {
    this.work = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    return Promise.resolve();
  }

  depth(): Promise<number | null> {
    return Promise.resolve(this.fifo.length);
  }

  async close(): Promise<void> {
    await this.pause();
    await Promise.allSettled([...this.active]);
  }

  /** Takes up the runs waiting in the store that this process does not know yet. */
  private async scan(): Promise<void> {
    try {
      for (const id of await this.opts.waiting(1000)) await this.enqueue(id);
    } catch (e) {
      this.opts.log.warn("the embedded queue could not read the waiting runs; it tries again", {
        error: (e as Error).message,
      });
    }
  }

  private pump(): void {
    while (this.work && this.active.size < this.concurrency && this.fifo.length) {
      const id = this.fifo.shift()!;
      const job = this.work(id)
        .catch((e: Error) => this.opts.log.error("a queued run's execution failed", { runId: id, error: e.message }))
        .finally(() => {
          this.active.delete(job);
          this.known.delete(id);
          this.pump();
        });
      this.active.add(job);
    }
  }
}
