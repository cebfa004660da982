import { ApiError } from "../errors.ts";

/** The `retryAfterSeconds` of a re-issued dispatch a stopping instance answers: another instance is ready at once. */
const STOPPING_RETRY_AFTER_SECONDS = 1;

/** What a stopping instance answers a re-issued dispatch still waiting on the first run's outcome. */
export function followStopped(): ApiError {
  return new ApiError(
    "UNAVAILABLE",
    "this instance is shutting down before the first run with this idempotency key ended; send the request again with the same key",
    [],
    { retryable: true, retryAfterSeconds: STOPPING_RETRY_AFTER_SECONDS },
  );
}

/**
 * The re-issued dispatches (the same idempotency key) waiting on this instance for a first run's outcome. A graceful
 * stop ends their wait once its own runs are drained (docs/run-lifecycle.md §4): each is answered
 * {@link followStopped}, retryable, so its caller sends again and another instance answers it, instead of losing its
 * connection when the listener closes.
 */
export class Followers {
  private readonly waiting = new Set<AbortController>();
  private stopped = false;

  /** `wait` (given a signal that aborts when this instance stops), or {@link followStopped} if it stops first. */
  async follow<T>(wait: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.stopped) throw followStopped();
    const controller = new AbortController();
    this.waiting.add(controller);
    const stopped = new Promise<never>((_, reject) =>
      controller.signal.addEventListener("abort", () => reject(followStopped()), { once: true }),
    );
    try {
      return await Promise.race([wait(controller.signal), stopped]);
    } finally {
      this.waiting.delete(controller);
    }
  }

  /** Answers every waiting follow {@link followStopped}, and any later one at once. */
  stop(): void {
    this.stopped = true;
    for (const c of this.waiting) c.abort();
  }
}
