import type { TaiErrorEntry } from "./errors.ts";

/** One operation as it goes on the wire. */
export interface WireRequest {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/** One GraphQL result as it comes off the wire. */
export interface WireResult {
  data?: unknown;
  errors?: readonly TaiErrorEntry[];
}

/**
 * The callbacks of one subscription (graphql-ws and graphql-sse share this shape).
 * Contract: `next` any number of times, then at most one of `error` or `complete`.
 */
export interface Sink {
  next(result: WireResult): void;
  /** The transport failed or the server refused: a close event, a network error, or a list of GraphQL errors. */
  error(cause: unknown): void;
  complete(): void;
}

/**
 * A subscription transport: graphql-ws (`ws-transport.ts`) or GraphQL over SSE in
 * distinct-connections mode (`sse-transport.ts`). It never retries on its own: a dropped
 * connection reaches the sink as an error, and resuming (from the last `seq` seen) is the
 * stream's job (`resuming-stream.ts`), because a blind re-subscribe would replay events
 * or start a second agent run.
 */
/** A credential, or the function that gives the one in use now (an OAuth access token that is refreshed). */
export type Credential = string | (() => string | null | undefined) | undefined;

/** The `Authorization` value of `credential` as it is now; undefined when there is none (anonymous). */
export function authorizationOf(credential: Credential): string | undefined {
  const value = typeof credential === "function" ? credential() : credential;
  return value ? `Bearer ${value}` : undefined;
}

export interface Transport {
  /** Starts one subscription; the returned function ends it (the server sees it complete). */
  subscribe(request: WireRequest, sink: Sink): () => void;
  /**
   * Drops the open connection (graphql-ws) so that the next subscription, or a resuming one, connects again with the
   * credential as it is now: resuming streams continue from their last `seq`, other subscriptions end with a
   * lost connection. Each SSE subscription is its own request, which has nothing to drop.
   */
  reconnect(): void;
  /** Closes the transport's connections; active subscriptions complete. */
  dispose(): Promise<void>;
}
