import { GraphQLError, type ExecutionResult } from "graphql";
import { isAsyncIterable, type Plugin } from "graphql-yoga";

/** `error` with `extensions.code` BAD_USER_INPUT, unless it carries a code already. */
function coded(error: GraphQLError): GraphQLError {
  if (error.extensions?.code) return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, code: "BAD_USER_INPUT" },
  });
}

/**
 * A request graphql-js refused before running anything (its variables do not coerce):
 * errors, no data, and no error with a path (a resolver's error always has one).
 */
function refusedRequest(result: ExecutionResult): boolean {
  return result.data === undefined && Boolean(result.errors?.length) && result.errors!.every((e) => !e.path);
}

function codedResult(result: ExecutionResult): ExecutionResult {
  return refusedRequest(result) ? { ...result, errors: result.errors!.map(coded) } : result;
}

/**
 * The client mistakes graphql-js reports without a code — a syntax error, a validation
 * error (an unknown field, a String where an enum is expected), a variable that does not
 * coerce (a malformed DateTime) — answered with `extensions.code` BAD_USER_INPUT, on
 * every transport, like every other bad input.
 */
export function useInputErrorCodes(): Plugin {
  return {
    onParse:
      () =>
      ({ result, replaceParseResult }) => {
        if (result instanceof GraphQLError) replaceParseResult(coded(result));
      },
    onValidate:
      () =>
      ({ valid, result, setResult }) => {
        if (!valid) setResult(result.map((e) => (e instanceof GraphQLError ? coded(e) : e)));
      },
    onExecute: () => ({
      onExecuteDone: ({ result, setResult }) => {
        if (!isAsyncIterable(result)) setResult(codedResult(result));
      },
    }),
    onSubscribe: () => ({
      onSubscribeResult: ({ result, setResult }) => {
        if (!isAsyncIterable(result)) setResult(codedResult(result));
      },
    }),
  };
}
