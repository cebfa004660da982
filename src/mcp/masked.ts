import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { contentionError } from "../db/contention.ts";
import { ApiError } from "../errors.ts";
import { failureLogOf } from "../failure-log.ts";
import type { Runtime } from "../runtime.ts";
import { withStatus } from "./http-status.ts";

/**
 * Runs a request's answer. A refusal the API types ({@link ApiError}, or contention and a
 * database refusing writes, `db/contention.ts`) is a JSON-RPC error naming its code, with
 * `data.code`, `data.retryable` and `data.retryAfterSeconds` (bad input is -32602); an
 * unexpected failure is logged (rate-limited) and becomes a masked internal error. An error with an HTTP status of
 * its own (a shed dispatch: 503) keeps it for the HTTP door (`http-status.ts`).
 */
export async function masked<T>(rt: Runtime, answer: () => Promise<T>): Promise<T> {
  try {
    return await answer();
  } catch (e) {
    if (e instanceof McpError) throw e;
    const log = failureLogOf(rt, rt.log);
    const typed = e instanceof ApiError ? e : contentionError(e);
    if (typed) {
      if (typed !== e)
        log.failed(
          "warn",
          "an MCP request met contention or a database refusing writes",
          { code: typed.code },
          typed.code,
        );
      const data = {
        code: typed.code,
        ...(typed.retryable ? { retryable: true } : {}),
        ...(typed.retryAfterSeconds !== undefined ? { retryAfterSeconds: typed.retryAfterSeconds } : {}),
      };
      const code =
        typed.code === "BAD_USER_INPUT" || typed.code === "INVALID_INPUT"
          ? ErrorCode.InvalidParams
          : ErrorCode.InternalError;
      const error = new McpError(code, rt.secrets.scrubText(`${typed.code}: ${typed.message}`), data);
      // A shed dispatch is 503 with Retry-After on an HTTP door (http-status.ts).
      if (typed.httpStatus)
        throw withStatus(error, { status: typed.httpStatus, retryAfterSeconds: typed.retryAfterSeconds });
      throw error;
    }
    const text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    log.failed("error", "an MCP request failed", { error: text }, text.slice(0, 200));
    throw new McpError(ErrorCode.InternalError, "internal error");
  }
}
