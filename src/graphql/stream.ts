import type { GraphQLContext } from "./context.ts";

/**
 * Wraps a stream so that `return()` (client completed or disconnected) takes effect at
 * once, even while the stream is parked waiting for its next event: the signal given to
 * `open` aborts, which ends the pending wait. An async generator alone would stay
 * suspended, and leak, until its next event.
 */
export function closeWith<T>(ctx: GraphQLContext, open: (signal: AbortSignal) => AsyncIterable<T>): AsyncIterableIterator<T> {
  const controller = new AbortController();
  const onOuter = () => controller.abort();
  ctx.signal?.addEventListener("abort", onOuter, { once: true });
  const inner = open(controller.signal)[Symbol.asyncIterator]();
  const stop = async () => {
    ctx.signal?.removeEventListener("abort", onOuter);
    controller.abort();
    await inner.return?.();
  };
  const it: AsyncIterableIterator<T> = {
    async next() {
      try {
        const r = await inner.next();
        if (r.done) await stop();
        return r;
      } catch (e) {
        await stop();
        throw e;
      }
    },
    async return() {
      await stop();
      return { value: undefined, done: true };
    },
    async throw(e?: unknown) {
      await stop();
      throw e;
    },
    [Symbol.asyncIterator]() {
      return it;
    },
  };
  return it;
}
