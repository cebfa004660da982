import { GraphQLError } from "graphql";
import { ApiError } from "../errors.ts";
import { contentionError } from "../db/contention.ts";
import type { Logger } from "../log.ts";
import type { Scrubber } from "../secrets/secrets.ts";

/**
 * Error masking at the edge, over every transport: an {@link ApiError} becomes a GraphQL
 * error with `extensions.code` and `issues` (and `retryable: true` for contention, which
 * is typed here too when domain code let it through: `db/contention.ts`); a GraphQL error raised by the server itself
 * (syntax, validation, limits) passes through; anything else is logged and masked.
 */
export function maskError(log: Logger, secrets: Scrubber) {
  return (error: unknown, message: string): Error => {
    const raw = error instanceof GraphQLError ? error.originalError : error;
    // Contention and a busy database reach the client typed and retryable, never masked.
    const original = raw instanceof ApiError ? raw : (contentionError(raw) ?? raw);
    if (original instanceof ApiError) {
      const g = error instanceof GraphQLError ? error : undefined;
      if (original !== raw)
        log.warn("a request met contention or a busy database", { code: original.code, error: raw instanceof Error ? `${raw.name}: ${raw.message}` : String(raw) });
      return new GraphQLError(secrets.scrubText(original.message), {
        nodes: g?.nodes,
        path: g?.path,
        extensions: {
          code: original.code,
          ...(original.retryable ? { retryable: true } : {}),
          ...(original.retryAfterSeconds !== undefined ? { retryAfterSeconds: original.retryAfterSeconds } : {}),
          ...(original.issues.length ? { issues: secrets.scrub(original.issues) } : {}),
        },
      });
    }
    if (error instanceof GraphQLError && (!error.originalError || error.originalError instanceof GraphQLError)) return error;
    log.error("unexpected error in a GraphQL operation", { error: original instanceof Error ? `${original.name}: ${original.message}` : String(original) });
    return new GraphQLError(message, {
      nodes: error instanceof GraphQLError ? error.nodes : undefined,
      path: error instanceof GraphQLError ? error.path : undefined,
      extensions: { code: "INTERNAL_SERVER_ERROR" },
    });
  };
}
