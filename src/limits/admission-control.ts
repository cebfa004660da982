import { ApiError } from "../errors.ts";

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
    const stalled = this.stalledMs();
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

  /** The dispatches open now. */
  get inFlight(): number {
    return this.open;
  }

  /** Dispatches refused so far. */
  get refused(): number {
    return this.refusedCount;
  }
}
