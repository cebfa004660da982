import { ApiError } from "../errors.ts";
import type { GraphQLContext } from "./context.ts";

/**
 * Wraps a stream so that `return()` (client completed or disconnected) takes effect at
 * once, even while the stream is parked waiting for its next event: the signal given to
 * `open` aborts, which ends the pending wait. An async generator alone would stay
 * suspended, and leak, until its next event.
 *
 * The stream also ends, with UNAUTHENTICATED, when the caller's API key is revoked or its access token ends (expired,
 * revoked at the issuer): on every transport (graphql-ws closes the socket too; SSE has only the stream), through the
 * bus and, where the server provides `ctx.holdCaller`, by its polling too.
 */
export function closeWith<T>(
  ctx: GraphQLContext,
  open: (signal: AbortSignal) => AsyncIterable<T>,
): AsyncIterableIterator<T> {
  const controller = new AbortController();
  const onOuter = () => controller.abort();
  ctx.signal?.addEventListener("abort", onOuter, { once: true });
  let revoked: string | null = null;
  const caller = ctx.caller;
  const keyId = caller?.keyId;
  const onRevoked = (reason: string) => {
    revoked = reason;
    controller.abort();
  };
  const unlistenRevoked =
    !caller || !keyId
      ? () => {}
      : ctx.holdCaller
        ? ctx.holdCaller(caller, onRevoked)
        : ctx.runtime.bus.listen("keyRevoked", (e) => e.keyId === keyId && onRevoked("the API key was revoked"));
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
        if (revoked !== null) throw new ApiError("UNAUTHENTICATED", revoked);
        if (r.done) await stop();
        return r;
      } catch (e) {
        await stop();
        throw revoked !== null ? new ApiError("UNAUTHENTICATED", revoked) : e;
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
