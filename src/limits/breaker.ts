import type { BreakerLimit } from "./limits.ts";
import { isRefusal, type LimitBackend } from "./limit-backend.ts";

/** How long a half-open breaker's one trial dispatch holds the trial, at most (its outcome ends it sooner). */
const TRIAL_SECONDS = 60;
/** How long the consecutive failures are remembered without a new one. */
const FAILURES_MEMORY_SECONDS = 3600;
/**
 * A state value at least this marks an opened breaker (it fits every store's integer column, PostgreSQL's too); below
 * it, the consecutive failures counted. An opened state lives for the open time plus {@link TRIAL_SECONDS}: the time
 * left before it expires says whether it is still open (more than the trial's length left) or half-open.
 */
const OPENED = 1_000_000_000;
/**
 * How long this instance trusts a closed breaker with no failures without reading the store again: an opening on
 * another instance is heard at once through `heardOpened` (the bus), within this without it.
 */
const CLOSED_TRUST_MS = 1000;

/** A breaker's answer to a dispatch: let through (the half-open trial, or with the failures seen), or refused. */
export type BreakerVerdict = { open: false; trial: boolean; failures: number } | { open: true; retryAfterMs: number };

/**
 * The circuit breakers of names that declare one (docs/flow-control.md §2), one state per name in the limits' store,
 * so every instance sees it and a dispatch reads it once: the consecutive transient failures (a small number), or
 * {@link OPENED}, whose expiry says until when it is open. Past that time, for the rest of the state's life (a
 * trial's length), the breaker is half-open: one dispatch at a time goes through (`trial`); its success closes the
 * breaker, its failure opens it again. A success after failures closes it and forgets them; one with none costs
 * nothing.
 */
export class Breakers {
  /** Names last read closed with no failures, until when they are trusted so (epoch ms). */
  private readonly closed = new Map<string, number>();

  constructor(
    private readonly backend: LimitBackend,
    /** Tells every instance that `name`'s breaker opened (the bus); they forget that it was closed. */
    private readonly announce: (name: string) => void = () => {},
  ) {}

  /** Another instance opened `name`'s breaker: its closed state is read from the store again. */
  heardOpened(name: string): void {
    this.closed.delete(name);
  }

  private state = () => this.backend.counter("breaker", Number.MAX_SAFE_INTEGER, FAILURES_MEMORY_SECONDS);
  private trial = () => this.backend.counter("breaker-trial", 1, TRIAL_SECONDS);

  /** Whether a dispatch of `name` may go through its breaker now. */
  async verdict(name: string): Promise<BreakerVerdict> {
    if ((this.closed.get(name) ?? 0) > Date.now()) return { open: false, trial: false, failures: 0 };
    const state = await this.state().get(name);
    const value = state?.consumedPoints ?? 0;
    if (value === 0) this.trustClosed(name);
    if (value < OPENED) return { open: false, trial: false, failures: value };
    const left = openLeft(state!.msBeforeNext);
    if (left > 0) return { open: true, retryAfterMs: left };
    try {
      await this.trial().consume(name);
      return { open: false, trial: true, failures: 0 };
    } catch (e) {
      if (isRefusal(e)) return { open: true, retryAfterMs: 1000 };
      throw e;
    }
  }

  /** Gives back `name`'s half-open trial taken by a dispatch that did not run (another limit refused it). */
  async giveBackTrial(name: string): Promise<void> {
    await this.trial().delete(name);
  }

  /** The time `name`'s breaker stays open, 0 when it is not open. */
  async openMs(name: string): Promise<number> {
    const state = await this.state().get(name);
    return (state?.consumedPoints ?? 0) < OPENED ? 0 : openLeft(state!.msBeforeNext);
  }

  /**
   * A transient failure of `name` (`UNAVAILABLE`, `TIMEOUT`, `RATE_LIMITED`): with `retryAfterSeconds` the breaker
   * opens for that long at once; else the `failures`-th in a row, or the failure of a trial, opens it for the
   * cool-down. True when this failure opened it.
   */
  async failed(name: string, b: BreakerLimit, trial: boolean, retryAfterSeconds?: number): Promise<boolean> {
    this.closed.delete(name);
    if (retryAfterSeconds !== undefined && retryAfterSeconds > 0) {
      await this.openFor(name, retryAfterSeconds);
      return true;
    }
    const after = (await this.state().consume(name)).consumedPoints;
    // Opened already (another dispatch's failure opened it meanwhile): it stays as it is.
    if (after >= OPENED && !trial) return false;
    if (!trial && after < b.failures) return false;
    await this.openFor(name, b.coolDownSeconds);
    return true;
  }

  /** A success of `name`: after failures (`failures` > 0, or as the trial) the breaker closes, its count forgotten. */
  async succeeded(name: string, trial: boolean, failures: number): Promise<void> {
    if (!trial && failures === 0) return;
    await Promise.all([this.state().delete(name), trial ? this.trial().delete(name) : undefined]);
  }

  /** Opens `name`'s breaker for `seconds`, half-open for a trial's length after. */
  private async openFor(name: string, seconds: number): Promise<void> {
    await this.state().set(name, OPENED, seconds + TRIAL_SECONDS);
    await this.trial().delete(name);
    this.announce(name);
  }

  private trustClosed(name: string): void {
    if (this.closed.size > 10_000) this.closed.clear();
    this.closed.set(name, Date.now() + CLOSED_TRUST_MS);
  }
}

/** How long an opened state with `msBeforeNext` left before it expires is still open (0: half-open). */
function openLeft(msBeforeNext: number): number {
  return Math.max(0, msBeforeNext - TRIAL_SECONDS * 1000);
}
