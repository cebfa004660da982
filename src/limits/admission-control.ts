import { ApiError } from "../errors.ts";

/** How often a busy process notes that its event loop turns; a gap longer than {@link PAUSED_MS} was a pause. */
const TICK_MS = 250;
const PAUSED_MS = 1000;
/** The tick stops after this long without a dispatch (an idle process needs none). */
const TICKER_IDLE_MS = 10_000;

/** The `retryAfterSeconds` of a dispatch admission control refused. */
export const SHED_RETRY_AFTER_SECONDS = 1;

/** A dispatch refused before any run exists because this instance is full or its database slow (HTTP 503). */
export function shed(message: string): ApiError {
  return new ApiError("UNAVAILABLE", message, [], {
    retryable: true,
    retryAfterSeconds: SHED_RETRY_AFTER_SECONDS,
    httpStatus: 503,
  });
}

/**
 * Admission control per instance (docs/flow-control.md §5): a bound on the dispatches of the API doors open on this
 * instance (executing or waiting) and on how long the run log's oldest write has waited; past either, a new dispatch
 * is refused at once, {@link shed}, and nothing is stored: a slow database sheds load instead of piling up requests.
 */
export class AdmissionControl {
  private open = 0;
  private refusedCount = 0;
  /** When this process last saw its event loop turn (a tick, or a dispatch entering). */
  private lastTurn = 0;
  /** Since when it has run without a pause (a SIGSTOP, a frozen VM): waits begun before were not the database's. */
  private awakeSince = 0;
  private lastEnter = 0;
  private ticker: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly maxInFlight: number,
    private readonly maxDbWaitMs: number,
    /** How long the database has kept this instance waiting now, in ms (its oldest operation not answered). */
    private readonly stalledMs: () => number,
  ) {}

  /** Admits a dispatch (the returned function ends it), or throws {@link shed}. */
  enter(): () => void {
    if (this.open >= this.maxInFlight) {
      this.refusedCount++;
      throw shed(`this instance has ${this.open} dispatches open (TAI_MAX_IN_FLIGHT); send the request again shortly`);
    }
    const stalled = Math.min(this.stalledMs(), this.awakeMs());
    if (stalled > this.maxDbWaitMs) {
      this.refusedCount++;
      throw shed(
        `the database is slow: this instance has waited ${(stalled / 1000).toFixed(1)} s on it (TAI_MAX_DB_WAIT_SECONDS is ${this.maxDbWaitMs / 1000}); send the request again shortly`,
      );
    }
    this.open++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.open--;
    };
  }

  /**
   * How long this process has run without a pause. A process that was stopped (SIGSTOP, a frozen VM) finds its
   * database operations "waiting" for as long as it was stopped, and a backlog of requests with them: they are not
   * shed for that (the database answered meanwhile). A tick every {@link TICK_MS}, kept while dispatches come (it
   * stops after {@link TICKER_IDLE_MS} without one), tells a pause from an idle spell.
   */
  private awakeMs(): number {
    const now = Date.now();
    this.lastEnter = now;
    if (now - this.lastTurn > PAUSED_MS) this.awakeSince = now;
    this.lastTurn = now;
    this.ticker ??= setInterval(() => {
      const t = Date.now();
      if (t - this.lastTurn > PAUSED_MS) this.awakeSince = t;
      this.lastTurn = t;
      if (t - this.lastEnter > TICKER_IDLE_MS && this.ticker) {
        clearInterval(this.ticker);
        this.ticker = null;
      }
    }, TICK_MS);
    this.ticker.unref();
    return now - this.awakeSince;
  }

  /** The dispatches open now. */
  get inFlight(): number {
    return this.open;
  }

  /** Dispatches refused so far. */
  get refused(): number {
    return this.refusedCount;
  }
}
