/**
 * A subscription the server closed on purpose; the subscriber resumes by afterSeq without loss. `code` is the API's.
 */
export class ResumableStreamError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** Raised into a subscriber's iterator when it fell behind its bounded buffer. */
export class SubscriberOverflowError extends ResumableStreamError {
  constructor(readonly bufferSize: number) {
    super(
      `subscriber fell behind: more than ${bufferSize} events were waiting, so the subscription was closed`,
      "SUBSCRIBER_LAGGING",
    );
    this.name = "SubscriberOverflowError";
  }
}

/** Options of a subscription (`Bus.subscribe`, `OrderedRunEvents.subscribe`). */
export interface SubscribeOptions<T> {
  /** Ends the iterator when aborted. */
  signal?: AbortSignal;
  /** Events queued for this subscriber before it is closed as lagging. @default 1000 */
  bufferSize?: number;
  /** Drops payloads the subscriber does not want, before they are queued. */
  filter?: (payload: T) => boolean;
  /** Called once when the subscriber is closed for lagging (metrics). */
  onOverflow?: () => void;
}

/**
 * An async iterator over what `listen` delivers, with a bounded queue of its own: a slow
 * consumer is closed with {@link SubscriberOverflowError}, never allowed to grow memory
 * or crash the process (yoga's default repeater throws past 1,024 queued events).
 * `listen` registers a listener and returns the function that removes it; the source may
 * also end the subscription with an error through `fail` (after what is queued).
 */
export function boundedSubscription<T>(
  listen: (deliver: (payload: T) => void, fail: (error: Error) => void) => () => void,
  options: SubscribeOptions<T> = {},
): AsyncIterableIterator<T> {
  const size = options.bufferSize ?? 1000;
  const queue: T[] = [];
  let waiting: ((r: IteratorResult<T>) => void) | null = null;
  let failure: Error | null = null;
  let done = false;

  const finish = () => {
    if (done) return;
    done = true;
    unlisten();
    options.signal?.removeEventListener("abort", finish);
    queue.length = 0;
    if (waiting) waiting({ value: undefined, done: true });
    waiting = null;
  };
  const fail = (error: Error) => {
    if (done || failure) return;
    failure = error;
    unlisten();
    if (waiting && !queue.length) {
      const w = waiting;
      waiting = null;
      failure = null;
      finish();
      // Resolving the pending next() with a rejected promise rejects it.
      w(Promise.reject(error) as unknown as IteratorResult<T>);
    }
  };
  const unlisten = listen(
    (payload) => {
      if (done || failure) return;
      if (options.filter && !options.filter(payload)) return;
      if (waiting) {
        const w = waiting;
        waiting = null;
        w({ value: payload, done: false });
      } else if (queue.length >= size) {
        failure = new SubscriberOverflowError(size);
        queue.length = 0;
        unlisten();
        options.onOverflow?.();
      } else queue.push(payload);
    },
    (error) => fail(error),
  );
  if (options.signal?.aborted) finish();
  else options.signal?.addEventListener("abort", finish, { once: true });

  const iterator: AsyncIterableIterator<T> = {
    next() {
      if (queue.length) return Promise.resolve({ value: queue.shift()!, done: false });
      if (failure) {
        // Thrown once; the iterator is done after that, as the protocol wants.
        const f = failure;
        failure = null;
        finish();
        return Promise.reject(f);
      }
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((ok) => (waiting = ok));
    },
    return() {
      finish();
      return Promise.resolve({ value: undefined, done: true });
    },
    throw(e?: unknown) {
      finish();
      return Promise.reject(e);
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/**
 * `rest`, preceded by `first`. `rest` is already listening when this is called, so a
 * subscriber that reads the state from `first` misses no change made after it: the
 * "snapshot, then changes" a client needs to follow a state across reconnections.
 */
export function startWith<T>(first: T, rest: AsyncIterableIterator<T>): AsyncIterableIterator<T> {
  let pending = true;
  const iterator: AsyncIterableIterator<T> = {
    next() {
      if (!pending) return rest.next();
      pending = false;
      return Promise.resolve({ value: first, done: false });
    },
    return() {
      pending = false;
      return rest.return ? rest.return() : Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
