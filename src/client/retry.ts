/** How a resuming stream retries after a lost connection. */
export interface RetryOptions {
  /**
   * How many resumptions in a row may fail (with no event received in between) before
   * the stream gives up with the last error. An event received resets the count.
   * @default 5
   */
  attempts?: number | undefined;
  /**
   * The wait before resumption number `attempt` (1-based), in milliseconds.
   * @default 500 ms doubling up to 8 s, plus up to 250 ms of random jitter
   */
  delayMs?: ((attempt: number) => number) | undefined;
}

/** {@link RetryOptions} with every default applied. */
export type RetryPolicy = { attempts: number; delayMs: (attempt: number) => number };

/**
 * Exponential backoff from 500 ms, capped at 8 s, with jitter so that clients cut off together do not return together.
 */
export const defaultDelayMs = (attempt: number): number =>
  Math.min(8000, 500 * 2 ** (attempt - 1)) + Math.floor(Math.random() * 250);

/** Applies the defaults. */
export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  const attempts = options.attempts ?? 5;
  if (!Number.isInteger(attempts) || attempts < 0)
    throw new RangeError(`retry.attempts must be a whole number ≥ 0 (got ${attempts})`);
  return { attempts, delayMs: options.delayMs ?? defaultDelayMs };
}
