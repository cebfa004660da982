/**
 * One duty of this instance in the cluster (its heartbeat, a periodic sweep): started once
 * when the runtime is built, stopped once when it closes. What `start` resolves with is the
 * duty's own (the orphan sweep's first result); {@link Duties.start} hands it back.
 */
export interface Duty {
  /** What the duty does, for a reader of the runtime's wiring. */
  readonly name: string;
  start(): void | Promise<unknown>;
  /** Stops the duty's timers; a tick under way finishes. */
  stop(): void | Promise<void>;
}

/** The duties this instance runs: started in order, stopped in reverse at shutdown. */
export class Duties {
  private readonly started: Duty[] = [];

  /** Starts `duty` (after those started before it); resolves with what its `start` resolves with. */
  async start<D extends Duty>(duty: D): Promise<Awaited<ReturnType<D["start"]>>> {
    const result = await duty.start();
    this.started.push(duty);
    return result as Awaited<ReturnType<D["start"]>>;
  }

  /**
   * Stops every duty started, the last started first. A duty whose `stop` returns nothing is stopped synchronously:
   * duties that only clear timers all stop in the caller's turn.
   */
  async stop(): Promise<void> {
    for (const duty of this.started.splice(0).reverse()) {
      const stopped = duty.stop();
      if (stopped) await stopped;
    }
  }
}

/** A duty that calls `tick` every `everyMs` milliseconds; its timer does not keep the process alive. */
export function everyDuty(name: string, everyMs: number, tick: () => void): Duty {
  let timer: NodeJS.Timeout | undefined;
  return {
    name,
    start() {
      timer = setInterval(tick, everyMs);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
