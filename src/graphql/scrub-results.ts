import { GraphQLError, type ExecutionResult } from "graphql";
import { handleStreamOrSingleExecutionResult, type Plugin } from "graphql-yoga";
import type { Scrubber } from "../secrets/secrets.ts";

/** A result with every known secret replaced in its data, errors and extensions. */
function scrubResult(result: ExecutionResult, secrets: Scrubber): ExecutionResult {
  return {
    ...result,
    ...(result.data !== undefined ? { data: secrets.scrub(result.data) } : {}),
    ...(result.extensions !== undefined ? { extensions: secrets.scrub(result.extensions) } : {}),
    ...(result.errors
      ? {
          errors: result.errors.map((e) => {
            const message = secrets.scrubText(e.message);
            const extensions = secrets.scrub(e.extensions);
            if (message === e.message && extensions === e.extensions) return e;
            return new GraphQLError(message, { nodes: e.nodes, source: e.source, positions: e.positions, path: e.path, originalError: e.originalError, extensions });
          }),
        }
      : {}),
  };
}

/**
 * The serving boundary (docs/security-model.md §3): every GraphQL result, single or
 * streamed (HTTP, SSE, graphql-ws, which executes through `yoga.getEnveloped`), leaves
 * with each secret the runtime knows replaced by "[redacted]".
 */
export function useScrubbedResults(secrets: Scrubber): Plugin {
  const onDone = (payload: Parameters<typeof handleStreamOrSingleExecutionResult>[0]) =>
    handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => setResult(scrubResult(result, secrets)));
  return {
    onExecute: () => ({ onExecuteDone: onDone }),
    onSubscribe: () => ({ onSubscribeResult: (payload) => onDone(payload as never) }),
  };
}
