import type { BreakerLimit } from "./limits.ts";
import { isRefusal, type LimitBackend } from "./limit-backend.ts";

/** How long a half-open breaker's one trial dispatch holds the trial, at most (its outcome ends it sooner). */
const TRIAL_SECONDS = 60;
/** How long the consecutive failures are remembered without a new one. */
const FAILURES_MEMORY_SECONDS = 3600;

/** A breaker's answer to a dispatch: let through (as the half-open trial or not), or refused for `retryAfterMs`. */
export type BreakerVerdict = { open: false; trial: boolean } | { open: true; retryAfterMs: number };

/**
 * The circuit breakers of names that declare one (docs/flow-control.md §2), their state in the limits' store so every
 * instance sees it: `open` (blocked for the cool-down), then `half` (the window after an opening, blocked for the
 * cool-down and a trial's length) during which one dispatch at a time is let through (`trial`); a success anywhere
 * closes the breaker, a failure of the trial (or the `failures`-th in a row) opens it again.
 */
export class Breakers {
  constructor(private readonly backend: LimitBackend) {}

  private open = () => this.backend.counter("breaker-open", 1, 1);
  private half = () => this.backend.counter("breaker-half", 1, 1);
  private trial = () => this.backend.counter("breaker-trial", 1, TRIAL_SECONDS);
  private failures = (b: BreakerLimit) => this.backend.counter("breaker-failures", b.failures, FAILURES_MEMORY_SECONDS);

  /** Whether a dispatch of `name` may go through its breaker now. */
  async verdict(name: string): Promise<BreakerVerdict> {
    const open = await this.open().get(name);
    if (open && open.consumedPoints > 1 && open.msBeforeNext > 0)
      return { open: true, retryAfterMs: open.msBeforeNext };
    const half = await this.half().get(name);
    if (!half || half.consumedPoints <= 1 || half.msBeforeNext <= 0) return { open: false, trial: false };
    try {
      await this.trial().consume(name);
      return { open: false, trial: true };
    } catch (e) {
      if (isRefusal(e)) return { open: true, retryAfterMs: 1000 };
      throw e;
    }
  }

  /** The time `name`'s breaker stays open, 0 when it is not open. */
  async openMs(name: string): Promise<number> {
    const open = await this.open().get(name);
    return open && open.consumedPoints > 1 ? Math.max(0, open.msBeforeNext) : 0;
  }

  /**
   * A transient failure of `name` (`UNAVAILABLE`, `TIMEOUT`, `RATE_LIMITED`): with `retryAfterSeconds` the breaker
   * opens for that long at once; else the `failures`-th in a row, or the failure of a trial, opens it for the
   * cool-down. True when this failure opened it.
   */
  async failed(name: string, b: BreakerLimit, trial: boolean, retryAfterSeconds?: number): Promise<boolean> {
    if (retryAfterSeconds !== undefined && retryAfterSeconds > 0) {
      await this.openFor(name, b, retryAfterSeconds);
      return true;
    }
    let reached = trial;
    try {
      const after = await this.failures(b).consume(name);
      reached ||= after.remainingPoints <= 0;
    } catch (e) {
      if (!isRefusal(e)) throw e;
      reached = true;
    }
    if (reached) await this.openFor(name, b, b.coolDownSeconds);
    return reached;
  }

  /** A success of `name`: its breaker is closed, its failures forgotten. */
  async succeeded(name: string, b: BreakerLimit, trial: boolean): Promise<void> {
    await this.failures(b).delete(name);
    if (trial) await Promise.all([this.half().delete(name), this.trial().delete(name)]);
  }

  /** Opens `name`'s breaker for `seconds`, then half-open; its count of failures starts again. */
  private async openFor(name: string, b: BreakerLimit, seconds: number): Promise<void> {
    await this.open().block(name, seconds);
    await this.half().block(name, seconds + TRIAL_SECONDS);
    await Promise.all([this.trial().delete(name), this.failures(b).delete(name)]);
  }
}
