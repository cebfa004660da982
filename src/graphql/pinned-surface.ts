import { getOperationAST } from "graphql";
import type { Plugin } from "graphql-yoga";
import type { Surface } from "../registry/surface.ts";
import type { GraphQLContext } from "./context.ts";

/**
 * One surface version per query response (docs/deploy.md §"Configuration converges"): a
 * query reads one immutable snapshot of the surface, taken as it begins executing, so
 * `tools`, `activeManifest` and `manifests { active }` agree even while the instance is
 * applying a change made elsewhere. Mutations and subscriptions keep the current surface:
 * a mutation's result shows what it wrote, a subscription's events what changed.
 */
export function usePinnedSurface(surface: Surface): Plugin<GraphQLContext> {
  return {
    onExecute: ({ args, extendContext }) => {
      if (getOperationAST(args.document, args.operationName)?.operation === "query")
        extendContext({ surface: surface.snapshot() });
    },
  };
}
