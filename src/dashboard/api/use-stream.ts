import { useEffect, useRef, useState } from "react";
import { TaiGraphQLError, TaiTransportError } from "tai42/client";
import { messageOf } from "./errors.ts";

/** A stream's state: whether it is open, and why it is not, if it failed. */
export interface StreamState {
  live: boolean;
  error: string | null;
}

/** The wait before reopening attempt `n` (1-based): 1 s doubling, at most 15 s. */
const reopenDelayMs = (n: number) => Math.min(15_000, 1000 * 2 ** (n - 1));

/**
 * Whether a stream that ended with `e` is worth opening again: a lost connection, or a subscriber the server found
 * lagging.
 */
function reopenable(e: unknown): boolean {
  return e instanceof TaiTransportError || (e instanceof TaiGraphQLError && e.code === "SUBSCRIBER_LAGGING");
}

export interface StreamOptions {
  /**
   * Called each time the stream opens again after a lost connection: what happened while
   * it was closed was not delivered, so the caller reads its state afresh.
   */
  onReopen?(): void;
}

/**
 * Reads an AsyncIterable (a subscription of the client) for as long as the component
 * stays mounted and `deps` do not change, passing each item to `onItem`. Unmounting or a
 * change of `deps` returns the iterator, which ends the subscription. A stream cut by a
 * lost connection is opened again (after 1 s, then longer); a refusal ends it. `open`
 * null: no stream.
 *
 * Contract: `onItem` and `onReopen` may change from one render to the next; the latest
 * ones are called.
 */
export function useStream<T>(
  open: (() => AsyncIterable<T>) | null,
  onItem: (item: T) => void,
  deps: readonly unknown[],
  options: StreamOptions = {},
): StreamState {
  const latest = useRef({ onItem, options });
  latest.current = { onItem, options };
  const [state, setState] = useState<StreamState>({ live: false, error: null });
  useEffect(() => {
    if (!open) return;
    let stopped = false;
    let iterator: AsyncIterator<T> | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    const run = async () => {
      iterator = open()[Symbol.asyncIterator]();
      setState({ live: true, error: null });
      try {
        for (;;) {
          const r = await iterator.next();
          if (stopped || r.done) break;
          failures = 0;
          latest.current.onItem(r.value);
        }
        if (!stopped) setState({ live: false, error: null });
      } catch (e) {
        if (stopped) return;
        if (!reopenable(e)) return setState({ live: false, error: messageOf(e) });
        setState({ live: false, error: `${messageOf(e)}; reconnecting…` });
        timer = setTimeout(() => {
          void run();
          latest.current.options.onReopen?.();
        }, reopenDelayMs(++failures));
      }
    };
    void run();
    return () => {
      stopped = true;
      clearTimeout(timer);
      void iterator?.return?.();
    };
  }, deps);
  return state;
}
