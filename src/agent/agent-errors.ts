import { APICallError, RetryError } from "ai";
import { ApiError, isErrorKind, KIND_OF_API_CODE, publicErrorName, isToolError, type ErrorKind } from "../errors.ts";

/** A failed run, as a door receives it: the kind, a safe message, and where the log ended. */
export class AgentRunFailedError extends Error {
  constructor(
    readonly runId: string,
    readonly kind: ErrorKind,
    message: string,
    readonly afterSeq: number,
  ) {
    super(message);
    this.name = "AgentRunFailedError";
  }
}

/**
 * Turns anything an agent threw into a kind and a message safe to store and show. Upstream
 * HTTP errors keep their status and the provider's message; an unexpected error keeps only
 * its class name (its text may carry internals), and `unexpected` is set so it is logged.
 */
export function classifyAgentError(
  error: unknown,
  aborted: boolean,
  reason?: unknown,
): { kind: ErrorKind; message: string; unexpected: boolean } {
  // An abort's own CANCELLED reason (server shutdown) keeps its message.
  if (aborted)
    return {
      kind: "CANCELLED",
      message: isToolError(reason) && reason.kind === "CANCELLED" ? reason.message : "the agent run was cancelled",
      unexpected: false,
    };
  // A failure an agent raises on purpose is a ToolError with its kind (docs/agent-stream.md §4).
  if (isToolError(error)) return { kind: error.kind, message: error.message, unexpected: false };
  if (error instanceof ApiError)
    return { kind: KIND_OF_API_CODE[error.code], message: error.message, unexpected: false };
  const api =
    RetryError.isInstance(error) && APICallError.isInstance(error.lastError)
      ? error.lastError
      : APICallError.isInstance(error)
        ? error
        : null;
  if (api) {
    const status = api.statusCode;
    const kind: ErrorKind =
      status === 429
        ? "RATE_LIMITED"
        : status === 408
          ? "TIMEOUT"
          : status !== undefined && status >= 500
            ? "UNAVAILABLE"
            : status === undefined
              ? "NETWORK"
              : "UPSTREAM";
    const tries = RetryError.isInstance(error) ? ` after ${error.errors.length} attempts` : "";
    const detail = providerMessage(api.responseBody) ?? api.message;
    return {
      kind,
      message: `the LLM provider failed${tries}: ${status ? `HTTP ${status}` : "no response"}${detail ? ` — ${detail}` : ""}`,
      unexpected: false,
    };
  }
  if (RetryError.isInstance(error))
    return { kind: "UPSTREAM", message: `the LLM provider failed: ${error.message}`, unexpected: false };
  if (
    error instanceof Error &&
    /fetch failed|ECONNREFUSED|ENOTFOUND|ECONNRESET|socket hang up/i.test(
      `${error.message} ${String((error as { cause?: unknown }).cause ?? "")}`,
    )
  )
    return { kind: "NETWORK", message: `the LLM provider could not be reached: ${error.message}`, unexpected: false };
  const kind = (error as { kind?: unknown })?.kind;
  if (isErrorKind(kind) && error instanceof Error) return { kind, message: error.message, unexpected: false };
  return { kind: "INTERNAL", message: `the agent failed unexpectedly (${publicErrorName(error)})`, unexpected: true };
}

/** The provider's own error text out of a JSON error body, when it has one. */
function providerMessage(body: string | undefined): string | null {
  if (!body) return null;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const m = typeof parsed.error === "string" ? parsed.error : (parsed.error?.message ?? parsed.message);
    return typeof m === "string" ? m.slice(0, 500) : null;
  } catch {
    return body.slice(0, 200);
  }
}
