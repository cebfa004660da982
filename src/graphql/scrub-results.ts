import { GraphQLError, type ExecutionResult } from "graphql";
import { handleStreamOrSingleExecutionResult, type Plugin } from "graphql-yoga";
import type { Scrubber } from "../secrets/secrets.ts";

/** An error's extensions with every value scrubbed; `code` and each issue's `path` are structure and stay. */
function scrubExtensions(extensions: GraphQLError["extensions"], secrets: Scrubber): GraphQLError["extensions"] {
  if (!extensions || typeof extensions !== "object") return extensions;
  const clean = secrets.scrub(extensions);
  if (clean === extensions) return clean;
  const issues = Array.isArray(extensions.issues) ? extensions.issues : null;
  return {
    ...clean,
    ...("code" in extensions ? { code: extensions.code } : {}),
    ...(issues && Array.isArray(clean.issues)
      ? {
          issues: clean.issues.map((i: unknown, n: number) =>
            i && typeof i === "object" && issues[n] && typeof issues[n] === "object" && "path" in issues[n]
              ? { ...i, path: issues[n].path }
              : i,
          ),
        }
      : {}),
  };
}

/** A result with every known secret replaced in its errors' messages and extensions, and in its extensions. */
function scrubResult(result: ExecutionResult, secrets: Scrubber): ExecutionResult {
  return {
    ...result,
    ...(result.extensions !== undefined ? { extensions: secrets.scrub(result.extensions) } : {}),
    ...(result.errors
      ? {
          errors: result.errors.map((e) => {
            const message = secrets.scrubText(e.message);
            const extensions = scrubExtensions(e.extensions, secrets);
            if (message === e.message && extensions === e.extensions) return e;
            return new GraphQLError(message, {
              nodes: e.nodes,
              source: e.source,
              positions: e.positions,
              path: e.path,
              originalError: e.originalError,
              extensions,
            });
          }),
        }
      : {}),
  };
}

/**
 * The serving boundary for errors (docs/security-model.md §3): every GraphQL result,
 * single or streamed (HTTP, SSE, graphql-ws, which executes through `yoga.getEnveloped`),
 * leaves with each secret the runtime knows replaced by "[redacted]" in its error
 * messages and extensions (never an error's `code`). Data is scrubbed field by field,
 * values only, by the schema's own resolvers (`scrub-fields.ts`).
 */
export function useScrubbedResults(secrets: Scrubber): Plugin {
  const onDone = (payload: Parameters<typeof handleStreamOrSingleExecutionResult>[0]) =>
    handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => setResult(scrubResult(result, secrets)));
  return {
    onExecute: () => ({ onExecuteDone: onDone }),
    onSubscribe: () => ({ onSubscribeResult: (payload) => onDone(payload as never) }),
  };
}
