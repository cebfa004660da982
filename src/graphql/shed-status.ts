import { getOperationAST, GraphQLError, type ExecutionResult } from "graphql";
import type { Plugin } from "graphql-yoga";
import { ApiError } from "../errors.ts";

/**
 * A request that admission control shed (docs/flow-control.md §5) is answered HTTP 503 with `Retry-After`, from the
 * shed error's `extensions.http` (`errors.ts`), only when every top-level field of the operation was shed: when
 * another took effect (a mutation's earlier field), a client resending on 503 would repeat it, so the answer keeps
 * the errors with yoga's usual status.
 */
export function useShedStatus(): Plugin {
  return {
    onExecute({ args }) {
      const fields = getOperationAST(args.document, args.operationName)?.selectionSet.selections.length ?? 0;
      return {
        onExecuteDone({ result, setResult }) {
          if (!isResult(result) || !result.errors?.length) return;
          const shed = new Set(result.errors.filter(isShed).map((e) => String(e.path?.[0])));
          if (shed.size === 0 || shed.size >= fields) return;
          setResult({ ...result, errors: result.errors.map(withoutStatus) });
        },
      };
    },
  };
}

const isResult = (r: unknown): r is ExecutionResult => typeof r === "object" && r !== null && "errors" in r;

/** A shed error, masked already (its `http` extension) or not yet (its ApiError's status). */
const isShed = (e: GraphQLError) => !!e.extensions?.http || !!shedApiError(e);
const shedApiError = (e: GraphQLError) =>
  e.originalError instanceof ApiError && e.originalError.httpStatus ? e.originalError : undefined;

function withoutStatus(e: GraphQLError): GraphQLError {
  if (!isShed(e)) return e;
  const { http: _http, ...extensions } = e.extensions ?? {};
  const api = shedApiError(e);
  const originalError = api
    ? new ApiError(api.code, api.message, api.issues, {
        retryable: api.retryable,
        retryAfterSeconds: api.retryAfterSeconds,
      })
    : e.originalError;
  return new GraphQLError(e.message, { nodes: e.nodes, path: e.path, originalError, extensions });
}
