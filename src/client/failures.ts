import { CloseCode } from "graphql-ws/client";
import { NetworkError } from "graphql-sse";
import { TaiGraphQLError, TaiTransportError, type TaiErrorEntry } from "./errors.ts";

/** What ended a subscription, and whether resuming it may help. */
export interface Failure {
  /** The error a consumer sees when the stream gives up. */
  error: Error;
  /**
   * `never`: the server refused (a bad key, a bad request, a failed agent run): resuming
   * would be refused the same way. `now`: the server closed a subscriber that fell behind
   * (SUBSCRIBER_LAGGING) and asks it to resume. `later`: the connection was lost, or the
   * server could not read the events to send (EVENTS_UNAVAILABLE) and will later.
   */
  resume: "never" | "now" | "later";
}

/**
 * Close codes that end a socket for good: graphql-ws's own fatal codes, and 1000–1999
 * except the ones that say "gone, try again" ({@link RETRYABLE_1XXX}). 4401 and 4403 are
 * refusals of the key, read apart (see `fromClose`).
 */
const FATAL_CLOSE = new Set<number>([
  CloseCode.InternalServerError,
  CloseCode.InternalClientError,
  CloseCode.BadRequest,
  CloseCode.BadResponse,
  CloseCode.SubprotocolNotAcceptable,
  CloseCode.SubscriberAlreadyExists,
  CloseCode.TooManyInitialisationRequests,
]);
const RETRYABLE_1XXX = new Set([1000, 1001, 1005, 1006, 1012, 1013, 1014]);

/** HTTP statuses worth another try: timeouts, rate limits and the server's own failures. */
const retryableStatus = (status: number) => status === 408 || status === 429 || status >= 500;

/** Sorts what a transport reported into a {@link Failure}. */
export function classify(cause: unknown): Failure {
  if (Array.isArray(cause)) return fromGraphQLErrors(cause as TaiErrorEntry[]);
  if (isCloseEvent(cause)) return fromClose(cause);
  if (cause instanceof NetworkError && cause.response) {
    const { status } = cause.response as Response;
    return {
      error: new TaiTransportError(`the server answered the stream with HTTP ${status}`, { status, cause }),
      resume: retryableStatus(status) ? "later" : "never",
    };
  }
  // A network error, or a stream cut mid-way: the connection was lost.
  return {
    error: new TaiTransportError(`the connection was lost: ${(cause as Error)?.message ?? String(cause)}`, { cause }),
    resume: "later",
  };
}

/** GraphQL errors that ended a subscription (a graphql-ws `error` message, or a `next` carrying errors). */
export function fromGraphQLErrors(errors: readonly TaiErrorEntry[], data?: unknown): Failure {
  const error = new TaiGraphQLError(errors, data);
  const code = (e: TaiErrorEntry) => e.extensions?.code;
  // The server closed the stream on purpose and said where to resume: a lagging
  // subscriber resumes now; events the store could not serve are replayed a moment later.
  if (errors.some((e) => code(e) === "SUBSCRIBER_LAGGING")) return { error, resume: "now" };
  return { error, resume: errors.some((e) => code(e) === "EVENTS_UNAVAILABLE") ? "later" : "never" };
}

function fromClose(event: { code: number; reason: string }): Failure {
  const { code, reason } = event;
  // tai42 closes a socket with 4403 when connection_init carries a malformed, unknown or
  // revoked key: the same refusal HTTP and SSE report as UNAUTHENTICATED.
  if (code === CloseCode.Unauthorized || code === CloseCode.Forbidden) {
    const message = reason.replace(/^(Forbidden|Unauthorized): /, "") || "the server refused the connection";
    return {
      error: new TaiGraphQLError([{ message, extensions: { code: "UNAUTHENTICATED", closeCode: code } }]),
      resume: "never",
    };
  }
  const fatal = FATAL_CLOSE.has(code) || (code >= 1000 && code <= 1999 && !RETRYABLE_1XXX.has(code));
  const error = new TaiTransportError(`the socket closed with ${code}${reason ? ` (${reason})` : ""}`, {
    closeCode: code,
    cause: event,
  });
  return { error, resume: fatal ? "never" : "later" };
}

function isCloseEvent(value: unknown): value is { code: number; reason: string } {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { code?: unknown }).code === "number" &&
    "reason" in value
  );
}
