/**
 * The HTTP status an MCP error's answer should have, when it is not the 200 every JSON-RPC error gets: a dispatch
 * admission control shed is answered 503 with `Retry-After` (docs/flow-control.md §5), as GraphQL answers it. Kept
 * beside the error (never in its `data`, which the client reads) by {@link withStatus}, read by the door that writes
 * the HTTP answer.
 */
export interface HttpStatus {
  status: number;
  retryAfterSeconds?: number;
}

const statuses = new WeakMap<object, HttpStatus>();

/** `error`, marked as to be answered with `status`. */
export function withStatus<E extends Error>(error: E, status: HttpStatus): E {
  statuses.set(error, status);
  return error;
}

/** The status `error` is to be answered with, when it was marked. */
export const statusOf = (error: unknown): HttpStatus | undefined =>
  error !== null && typeof error === "object" ? statuses.get(error) : undefined;

/** The headers of an answer with `status` (its `Retry-After`). */
export const statusHeaders = (status: HttpStatus | undefined): Record<string, string> =>
  status?.retryAfterSeconds !== undefined ? { "retry-after": String(status.retryAfterSeconds) } : {};
