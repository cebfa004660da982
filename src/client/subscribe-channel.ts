import { Channel } from "./channel.ts";
import { TaiGraphQLError } from "./errors.ts";
import { classify } from "./failures.ts";
import type { Transport } from "./transport.ts";

/**
 * A subscription's events as a channel of their typed `data`: an event carrying errors ends it with a
 * {@link TaiGraphQLError}, a lost connection with the transport's error. It is in `open` until it ends.
 */
export function subscribeChannel<R>(
  transport: Transport,
  open: Set<{ return(): Promise<unknown> }>,
  query: string,
  variables: Record<string, unknown> | undefined,
): Channel<R> {
  const channel: Channel<R> = new Channel<R>(() => {
    open.delete(channel);
    unsubscribe();
  });
  const end = (error?: unknown) => {
    open.delete(channel);
    channel.end(error);
  };
  const unsubscribe = transport.subscribe(variables ? { query, variables } : { query }, {
    next: (result) => {
      if (!result.errors?.length) return channel.push(result.data as R);
      end(new TaiGraphQLError(result.errors, result.data));
      unsubscribe();
    },
    error: (cause) => end(classify(cause).error),
    complete: () => end(),
  });
  open.add(channel);
  return channel;
}
