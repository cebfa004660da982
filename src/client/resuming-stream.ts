import { Channel } from "./channel.ts";
import { TaiTransportError } from "./errors.ts";
import { classify, fromGraphQLErrors, type Failure } from "./failures.ts";
import type { RetryPolicy } from "./retry.ts";
import type { Transport, WireRequest, WireResult } from "./transport.ts";

/** How a resuming stream reads its values and asks for the rest of its log. */
export interface StreamCursor<T> {
  /** The value one result's `data` carries. */
  pick(data: unknown): T;
  /** The value's position in the log; strictly increasing along the stream. */
  seq(value: T): number;
  /** Whether the value is the last of the stream (an agent run's terminal event). */
  isFinal(value: T): boolean;
  /**
   * The variables of a subscription that continues right after `last` (after the start
   * when nothing was received yet), or a sentence saying why the stream cannot resume.
   */
  resumeAfter(last: T | undefined): Record<string, unknown> | { cannotResume: string };
}

/**
 * A subscription to an ordered log (run events, an agent run) that resumes on its own.
 *
 * - Each value is delivered exactly once, in order: the last `seq` delivered is tracked,
 *   and a value at or before it (a replay overlapping what was seen) is dropped.
 * - When the connection is lost, or the server closes a subscriber that fell behind
 *   (SUBSCRIBER_LAGGING), it subscribes again from the last `seq` delivered
 *   (`afterSeq`), which replays what was missed and continues live. The server's log
 *   guarantees there is no gap.
 * - A refusal (GraphQL errors, a refused key) ends it with that error; so does a lost
 *   connection once `retry.attempts` resumptions in a row failed, each after
 *   `retry.delayMs(attempt)`.
 * - It ends after a final value, when the server completes it, or when the consumer
 *   returns (`break`), which ends the subscription on the server.
 */
export class ResumingStream<T> implements AsyncIterableIterator<T, undefined> {
  private readonly channel: Channel<T>;
  private readonly request: WireRequest;
  /** The last value received: where a resumption continues from. */
  private last: T | undefined;
  /** The `seq` of the last value the consumer read. */
  private read: number | undefined;
  private failures = 0;
  /** Tells the current subscription's callbacks from those of a superseded one. */
  private generation = 0;
  private unsubscribe: (() => void) | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly transport: Transport,
    query: string,
    variables: Record<string, unknown>,
    private readonly cursor: StreamCursor<T>,
    private readonly retry: RetryPolicy,
    /** Contract: called once, when the stream ends for any reason. */
    private readonly onEnd: () => void = () => {},
  ) {
    this.channel = new Channel<T>(() => this.stop());
    this.request = { query, variables };
    this.open();
  }

  /** The `seq` of the last value the consumer read: the `afterSeq` that continues from there. */
  get lastSeq(): number | undefined {
    return this.read;
  }

  async next(): Promise<IteratorResult<T, undefined>> {
    const result = await this.channel.next();
    if (!result.done) this.read = this.cursor.seq(result.value);
    return result;
  }

  /** Ends the stream and its subscription. */
  return(): Promise<IteratorResult<T, undefined>> {
    return this.channel.return();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private open(): void {
    const generation = ++this.generation;
    const current =
      (f: (...args: never[]) => void) =>
      (...args: never[]) =>
        generation === this.generation ? f(...args) : undefined;
    this.unsubscribe = this.transport.subscribe(this.request, {
      next: current((result: WireResult) => this.receive(result)),
      error: current((cause: unknown) => this.fail(classify(cause))),
      complete: current(() => this.finish()),
    });
  }

  private receive(result: WireResult): void {
    if (result.errors?.length) return this.fail(fromGraphQLErrors(result.errors, result.data));
    if (result.data === undefined || result.data === null)
      return this.finish(new TaiTransportError("the server sent a stream result with neither data nor errors"));
    const value = this.cursor.pick(result.data);
    const seq = this.cursor.seq(value);
    if (this.last !== undefined && seq <= this.cursor.seq(this.last)) return;
    this.last = value;
    this.failures = 0;
    // graphql-ws re-sends this same request object when it reconnects by itself (after a
    // 1000 close): kept current, that re-send is a correct resume too.
    const next = this.cursor.resumeAfter(value);
    if (!("cannotResume" in next)) this.request.variables = next;
    this.channel.push(value);
    if (this.cursor.isFinal(value)) this.finish();
  }

  private fail(failure: Failure): void {
    this.detach();
    if (failure.resume === "never") return this.finish(failure.error);
    const variables = this.cursor.resumeAfter(this.last);
    if ("cannotResume" in variables)
      return this.finish(
        new TaiTransportError(`${variables.cannotResume}: ${failure.error.message}`, { cause: failure.error }),
      );
    if (++this.failures > this.retry.attempts) {
      const { status, closeCode } = failure.error as TaiTransportError;
      const tries = this.retry.attempts === 1 ? "1 attempt" : `${this.retry.attempts} attempts`;
      return this.finish(
        new TaiTransportError(`gave up resuming the stream after ${tries}: ${failure.error.message}`, {
          status,
          closeCode,
          cause: failure.error,
        }),
      );
    }
    this.request.variables = variables;
    const wait = failure.resume === "now" ? 0 : this.retry.delayMs(this.failures);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.channel.done) this.open();
    }, wait);
  }

  private finish(error?: unknown): void {
    this.detach();
    if (this.channel.done) return;
    this.channel.end(error);
    this.onEnd();
  }

  /** The consumer returned (or the client closed): end the subscription on the server. */
  private stop(): void {
    this.detach();
    this.onEnd();
  }

  private detach(): void {
    this.generation++;
    clearTimeout(this.timer);
    this.timer = undefined;
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    unsubscribe?.();
  }
}
