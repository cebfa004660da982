/**
 * A push queue read as an async iterator: the producer pushes values and ends it (with
 * or without an error); the consumer reads it with `for await`. `return()` (a `break`)
 * drops what is queued, ends it and calls `onReturn` once, even while a `next()` waits.
 */
export class Channel<T> implements AsyncIterableIterator<T, undefined> {
  private readonly queue: T[] = [];
  private readonly readers: { resolve: (r: IteratorResult<T, undefined>) => void; reject: (e: unknown) => void }[] = [];
  private ended = false;
  private failure: { error: unknown } | undefined;

  /** @param onReturn Contract: called once, when the consumer returns before the end. */
  constructor(private readonly onReturn: () => void = () => {}) {}

  /** Whether the channel has ended (by its producer or its consumer). */
  get done(): boolean {
    return this.ended;
  }

  push(value: T): void {
    if (this.ended) return;
    const reader = this.readers.shift();
    if (reader) reader.resolve({ value, done: false });
    else this.queue.push(value);
  }

  /** Ends the channel; queued values are still read, then `error` (if any) is thrown once. */
  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    if (error !== undefined) this.failure = { error };
    for (const reader of this.readers.splice(0)) this.settle(reader);
  }

  next(): Promise<IteratorResult<T, undefined>> {
    if (this.queue.length) return Promise.resolve({ value: this.queue.shift()!, done: false });
    return new Promise((resolve, reject) => {
      if (this.ended) this.settle({ resolve, reject });
      else this.readers.push({ resolve, reject });
    });
  }

  return(): Promise<IteratorResult<T, undefined>> {
    this.queue.length = 0;
    this.failure = undefined;
    if (!this.ended) {
      this.ended = true;
      this.onReturn();
    }
    for (const reader of this.readers.splice(0)) reader.resolve({ value: undefined, done: true });
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private settle(reader: (typeof this.readers)[number]): void {
    const failure = this.failure;
    this.failure = undefined;
    if (failure) reader.reject(failure.error);
    else reader.resolve({ value: undefined, done: true });
  }
}
