import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { isToolError, ToolError } from "../../errors.ts";

/** The longest upstream message a run keeps (an upstream's error text is not ours to trust in size). */
export const MESSAGE_CHARS = 2000;

/** Cuts `text` to {@link MESSAGE_CHARS}, an ellipsis marking the cut. */
export function bounded(text: string): string {
  return text.length > MESSAGE_CHARS ? `${text.slice(0, MESSAGE_CHARS - 1)}…` : text;
}

/**
 * Classifies what a request to an MCP upstream rejected with (docs/connectors.md §8): a
 * `ToolError` as it is (a timeout, the guarded fetch's refusal, an abort's reason); the
 * closed connection UNAVAILABLE; the SDK's own request timeout TIMEOUT; the upstream's
 * JSON-RPC error UPSTREAM, InvalidParams INVALID_INPUT; a result the SDK's schema refuses
 * UPSTREAM; anything else (a failed HTTP
 * exchange) UNAVAILABLE with its message.
 */
export function classify(error: unknown, what: string): ToolError {
  if (isToolError(error)) return error;
  if (error instanceof McpError) {
    const text = bounded(error.message);
    if (error.code === ErrorCode.ConnectionClosed)
      return new ToolError(`${what}: the MCP server closed the connection`, { kind: "UNAVAILABLE", cause: error });
    if (error.code === ErrorCode.RequestTimeout)
      return new ToolError(`${what}: the MCP server did not answer in time`, { kind: "TIMEOUT", cause: error });
    if (error.code === ErrorCode.InvalidParams)
      return new ToolError(`${what}: ${text}`, { kind: "INVALID_INPUT", retryable: false, cause: error });
    return new ToolError(`${what}: ${text}`, { kind: "UPSTREAM", cause: error });
  }
  if (isMalformed(error))
    return new ToolError(`${what}: the MCP server sent a malformed result`, {
      kind: "UPSTREAM",
      retryable: false,
      cause: error,
    });
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError(`${what}: ${bounded(message)}`, { kind: "UNAVAILABLE", cause: error });
}

/** The SDK refused the shape of what the upstream sent (a zod error from its result schema). */
export function isMalformed(error: unknown): boolean {
  return error instanceof Error && error.name === "ZodError";
}
