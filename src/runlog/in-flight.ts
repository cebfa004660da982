/** One run in flight on this instance: what aborts it, and what settles when it has ended. */
export interface InFlightRun<T> {
  controller: AbortController;
  done: Promise<T>;
  /**
   * Resolves when the run is no longer this instance's work: ended, and its outcome stored (or given up at shutdown).
   */
  held: Promise<void>;
}

/**
 * The runs in flight on this instance, of one run engine (tool runs, agent runs): what
 * cancels a run held here, what waits for it, and the drain at shutdown. The owner
 * consults {@link InFlight.closing} to refuse new runs once a drain has begun.
 */
export class InFlight<T> {
  private readonly runs = new Map<string, InFlightRun<T>>();
  private draining = false;
  /** Admissions under way (a start checked before a drain began, its run not added yet): a drain waits for them too. */
  private readonly admissions = new Set<Promise<unknown>>();
  /**
   * Set once a drain's deadline passed: a run added after it (admitted just before the drain began) is aborted at once.
   */
  private lateAbort: { reason: unknown } | null = null;

  /** True once {@link InFlight.drain} was called: the owner accepts no new runs. */
  get closing(): boolean {
    return this.draining;
  }

  get size(): number {
    return this.runs.size;
  }

  /**
   * Tracks a run until `done` settles (resolved or rejected), and then until what
   * `holdAfter` returns settles, if it returns anything: a run whose outcome is kept until
   * the database takes it (`runlog/pending-outcomes.ts`) stays tracked until it is stored.
   * Resolves when the run is no longer tracked. A later `add` of the same id (a park
   * resumed inside its own dispatch) replaces it; the earlier one's end then leaves the
   * later one tracked.
   */
  add(
    id: string,
    controller: AbortController,
    done: Promise<T>,
    holdAfter?: () => Promise<unknown> | undefined,
  ): Promise<void> {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const run = { controller, done, held };
    this.runs.set(id, run);
    if (this.lateAbort) controller.abort(this.lateAbort.reason);
    const forget = () => {
      if (this.runs.get(id) === run) this.runs.delete(id);
      release();
    };
    const ended = () => {
      const more = holdAfter?.();
      if (more) more.then(forget, forget);
      else forget();
    };
    done.then(ended, ended);
    return held;
  }

  /**
   * Tracks an admission under way until it settles: a drain that begins meanwhile waits
   * for it, and for the run it adds (cancelled at the deadline like the rest).
   */
  admitting<P>(admission: Promise<P>): Promise<P> {
    this.admissions.add(admission);
    const off = () => void this.admissions.delete(admission);
    admission.then(off, off);
    return admission;
  }

  /** The ids of the runs in flight. */
  ids(): string[] {
    return [...this.runs.keys()];
  }

  get(id: string): InFlightRun<T> | undefined {
    return this.runs.get(id);
  }

  /** Aborts a run held here with `reason`; false when this instance does not hold it. */
  abort(id: string, reason?: unknown): boolean {
    const run = this.runs.get(id);
    if (!run) return false;
    run.controller.abort(reason);
    return true;
  }

  /**
   * Stops accepting runs ({@link InFlight.closing}), waits up to `graceMs` for those in
   * flight, then aborts the rest with `abortReason` and waits for them to settle.
   * `alongside` is work draining against the same deadline that may still add runs here
   * until it settles (agent runs' tool calls): it is waited for too, and the runs it added
   * are aborted with the rest at the deadline.
   */
  async drain(
    graceMs: number,
    abortReason?: unknown,
    alongside?: Promise<unknown>,
    /** Told the runs still in flight at the deadline, before they are aborted (a hand-back). */
    atDeadline?: (ids: string[]) => Promise<void>,
  ): Promise<void> {
    this.draining = true;
    // Until none is left: a start admitted just before the drain began may add its run after it.
    const all = async () => {
      while (this.runs.size || this.admissions.size)
        await Promise.allSettled([...this.admissions, ...[...this.runs.values()].map((r) => r.held)]);
    };
    const quiet = async () => {
      await alongside?.catch(() => {});
      await all();
    };
    const timer = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), graceMs).unref());
    if ((await Promise.race([quiet(), timer])) === "timeout") {
      await atDeadline?.(this.ids()).catch(() => {});
      this.lateAbort = { reason: abortReason };
      for (const r of this.runs.values()) r.controller.abort(abortReason);
      await quiet();
    }
  }
}
