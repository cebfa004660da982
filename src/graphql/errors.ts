import { GraphQLError } from "graphql";
import { ApiError } from "../errors.ts";
import { contentionError } from "../db/contention.ts";
import { failureLog } from "../failure-log.ts";
import type { Logger } from "../log.ts";
import type { Scrubber } from "../secrets/secrets.ts";

/**
 * Error masking at the edge, over every transport: an {@link ApiError} becomes a GraphQL
 * error with `extensions.code` and `issues` (and `retryable: true` for contention, which
 * is typed here too when domain code let it through: `db/contention.ts`); a GraphQL error raised by the server itself
 * (syntax, validation, limits) passes through; anything else is logged and masked.
 * The lines are rate-limited per kind of failure (`failure-log.ts`): during a database
 * outage every request fails alike, and is logged as a few lines that count them.
 */
export function maskError(log: Logger, secrets: Scrubber) {
  const failures = failureLog(log);
  const text = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
  return (error: unknown, message: string): Error => {
    const raw = error instanceof GraphQLError ? error.originalError : error;
    // Contention and a busy database reach the client typed and retryable, never masked.
    const original = raw instanceof ApiError ? raw : (contentionError(raw) ?? raw);
    if (original instanceof ApiError) {
      const g = error instanceof GraphQLError ? error : undefined;
      if (original !== raw)
        failures.failed(
          "warn",
          "a request met contention or a busy database",
          { code: original.code, error: text(raw) },
          original.code,
        );
      return new GraphQLError(secrets.scrubText(original.message), {
        nodes: g?.nodes,
        path: g?.path,
        extensions: {
          code: original.code,
          ...(original.retryable ? { retryable: true } : {}),
          ...(original.retryAfterSeconds !== undefined ? { retryAfterSeconds: original.retryAfterSeconds } : {}),
          // Yoga answers with this status and headers, and leaves `http` out of the response body.
          ...(original.httpStatus ? { http: { status: original.httpStatus, headers: retryAfter(original) } } : {}),
          // An issue's path names where the input was wrong: structure, like the code.
          ...(original.issues.length
            ? { issues: original.issues.map((i) => ({ ...secrets.scrub(i), path: i.path })) }
            : {}),
        },
      });
    }
    if (error instanceof GraphQLError && (!error.originalError || error.originalError instanceof GraphQLError))
      return error;
    const unexpected = text(original);
    failures.failed(
      "error",
      "unexpected error in a GraphQL operation",
      { error: unexpected },
      unexpected.slice(0, 200),
    );
    return new GraphQLError(message, {
      nodes: error instanceof GraphQLError ? error.nodes : undefined,
      path: error instanceof GraphQLError ? error.path : undefined,
      extensions: { code: "INTERNAL_SERVER_ERROR" },
    });
  };
}

/** The `Retry-After` header of an error that has a time to retry. */
function retryAfter(e: ApiError): Record<string, string> {
  return e.retryAfterSeconds === undefined ? {} : { "Retry-After": String(Math.ceil(e.retryAfterSeconds)) };
}
