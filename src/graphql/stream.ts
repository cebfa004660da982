import { ApiError } from "../errors.ts";
import type { GraphQLContext } from "./context.ts";

/**
 * Wraps a stream so that `return()` (client completed or disconnected) takes effect at
 * once, even while the stream is parked waiting for its next event: the signal given to
 * `open` aborts, which ends the pending wait. An async generator alone would stay
 * suspended, and leak, until its next event.
 *
 * The stream also ends, with UNAUTHENTICATED, when the caller's API key is revoked: on
 * every transport (graphql-ws closes the socket too; SSE has only the stream), through
 * the bus and, where the server provides `ctx.holdKey`, by its polling too.
 */
export function closeWith<T>(
  ctx: GraphQLContext,
  open: (signal: AbortSignal) => AsyncIterable<T>,
): AsyncIterableIterator<T> {
  const controller = new AbortController();
  const onOuter = () => controller.abort();
  ctx.signal?.addEventListener("abort", onOuter, { once: true });
  let revoked = false;
  const keyId = ctx.caller?.keyId;
  const onRevoked = () => {
    revoked = true;
    controller.abort();
  };
  const unlistenRevoked = !keyId
    ? () => {}
    : ctx.holdKey
      ? ctx.holdKey(keyId, onRevoked)
      : ctx.runtime.bus.listen("keyRevoked", (e) => e.keyId === keyId && onRevoked());
  const inner = open(controller.signal)[Symbol.asyncIterator]();
  const stop = async () => {
    ctx.signal?.removeEventListener("abort", onOuter);
    unlistenRevoked();
    controller.abort();
    await inner.return?.();
  };
  const it: AsyncIterableIterator<T> = {
    async next() {
      try {
        const r = await inner.next();
        if (revoked) throw new ApiError("UNAUTHENTICATED", "the API key was revoked");
        if (r.done) await stop();
        return r;
      } catch (e) {
        await stop();
        throw revoked ? new ApiError("UNAUTHENTICATED", "the API key was revoked") : e;
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
