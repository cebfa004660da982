import type { Runtime } from "../../src/runtime.ts";

/** When this process saw a run's events on the bus (performance.now(), ms). */
export interface RunTimes {
  queued?: number;
  started?: number;
  finished?: number;
  status?: string;
}

/**
 * The runs of one bench side, followed on a runtime's bus: when each was queued, started and
 * finished as this process saw it, and a wait for a count of them to finish. Only the runs
 * whose echo `text` is `marker` are followed, so runs of another side never count.
 */
export class RunTracker {
  readonly runs = new Map<string, RunTimes>();
  private finished = 0;
  private waiter: { count: number; done: () => void } | null = null;
  private readonly unlisten: () => void;

  constructor(bus: Runtime["bus"], marker: string) {
    this.unlisten = bus.listen("runEvent", (e) => {
      if ((e.run.input as { text?: unknown } | null)?.text !== marker) return;
      const times = this.runs.get(e.runId) ?? {};
      this.runs.set(e.runId, times);
      const now = performance.now();
      if (e.type === "RUN_QUEUED") times.queued ??= now;
      else if (e.type === "RUN_STARTED") times.started ??= now;
      else if (e.type === "RUN_FINISHED" && times.finished === undefined) {
        times.finished = now;
        times.status = e.run.status;
        this.finished++;
        if (this.waiter && this.finished >= this.waiter.count) this.waiter.done();
      }
    });
  }

  /** How many followed runs finished so far. */
  get finishedCount(): number {
    return this.finished;
  }

  /** Resolves once `count` followed runs finished in all; rejects after `timeoutMs`. */
  until(count: number, timeoutMs: number): Promise<void> {
    if (this.finished >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        reject(new Error(`bench: ${this.finished} of ${count} background runs finished within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiter = {
        count,
        done: () => {
          clearTimeout(timer);
          this.waiter = null;
          resolve();
        },
      };
    });
  }

  close(): void {
    this.unlisten();
  }
}
