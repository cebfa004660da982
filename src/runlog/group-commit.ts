/**
 * Group commit: every job submitted while a batch is being written joins the next
 * batch, and each batch is written by one call of `write` (one transaction). Jobs
 * submitted in the same turn of the event loop (the requests one poll of the sockets
 * produced) start a batch together. Waiting for that turn's end also yields to the
 * sockets between a dispatch's two writes, which keeps SQLite's synchronous writes from
 * serving one request end to end while the others wait unparsed (the p99 tail). Each
 * caller awaits its own job's result; a job that failed rejects only its own caller.
 */
export class GroupCommit<J, R> {
  private queue: { job: J; ok: (r: R) => void; fail: (e: unknown) => void; at: number }[] = [];
  /** When the oldest job of the batch being written was submitted (epoch ms); null when none is written. */
  private writingSince: number | null = null;
  private writing = false;
  private scheduled = false;
  /** Callers of {@link idle} waiting for the queue to drain. */
  private drained: (() => void)[] = [];

  constructor(private readonly write: (jobs: J[]) => Promise<(R | Error)[]>) {}

  submit(job: J): Promise<R> {
    return new Promise<R>((ok, fail) => {
      this.queue.push({ job, ok, fail, at: Date.now() });
      if (!this.writing && !this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          void this.flush();
        });
      }
    });
  }

  /** How long the oldest job not yet written has waited, in ms (0 when none waits): how slow the database is now. */
  stalledMs(): number {
    const since = this.writingSince ?? this.queue[0]?.at;
    return since === undefined ? 0 : Date.now() - since;
  }

  /** Resolves once every job submitted so far is written. */
  idle(): Promise<void> {
    if (!this.queue.length && !this.writing && !this.scheduled) return Promise.resolve();
    return new Promise((r) => this.drained.push(r));
  }

  private async flush(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      while (this.queue.length) {
        const batch = this.queue;
        this.queue = [];
        this.writingSince = batch[0].at;
        let results: (R | Error)[];
        try {
          results = await this.write(batch.map((b) => b.job));
        } catch (e) {
          for (const b of batch) b.fail(e);
          continue;
        }
        batch.forEach((b, i) => {
          const r = results[i];
          if (r instanceof Error) b.fail(r);
          else b.ok(r);
        });
      }
    } finally {
      this.writingSince = null;
      this.writing = false;
      for (const r of this.drained.splice(0)) r();
    }
  }
}
