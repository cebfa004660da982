import { useShedStatus } from "../graphql/shed-status.ts";
import type { IncomingMessage } from "node:http";
import { createYoga, type GraphiQLOptions, type YogaServerInstance } from "graphql-yoga";
import type { Caller } from "../auth/roles.ts";
import type { GraphQLContext } from "../graphql/context.ts";
import { useDocumentDepthLimit } from "../graphql/document-depth.ts";
import { maskError } from "../graphql/errors.ts";
import { useInputErrorCodes } from "../graphql/input-error-codes.ts";
import { usePinnedSurface } from "../graphql/pinned-surface.ts";
import { useScrubbedResults } from "../graphql/scrub-results.ts";
import { schema } from "../graphql/schema.ts";
import type { Runtime } from "../runtime.ts";
import { authenticate } from "./authenticate.ts";
import { csrfPrevention } from "./csrf.ts";
import { operationLimits } from "./limits.ts";

/** The server context yoga is given: the node request (HTTP), or the caller of a graphql-ws operation. */
export interface ServerContext {
  req?: IncomingMessage;
  /** Set for graphql-ws operations: the caller authenticated on connection_init. */
  wsCaller?: Caller | null;
}

export type TaiYoga = YogaServerInstance<ServerContext, GraphQLContext>;

/** Yoga for `/graphql` (HTTP, GraphiQL, SSE; graphql-ws runs its operations through it too, graphql-ws.ts). */
export function buildYoga(rt: Runtime, holdCaller: NonNullable<GraphQLContext["holdCaller"]>): TaiYoga {
  const { config } = rt;
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    landingPage: false,
    graphiql: config.graphiql ? { title: "tai42 GraphiQL", subscriptionsProtocol: "WS" } : false,
    renderGraphiQL: offlineGraphiQL(),
    maskedErrors: { maskError: maskError(rt.log, rt.secrets) },
    maxRequestBodySize: config.maxBodyBytes,
    // Same-origin only unless TAI_CORS_ORIGINS lists origins (yoga's default echoes any origin).
    cors: config.corsOrigins.length
      ? { origin: config.corsOrigins, credentials: true, methods: ["GET", "POST"] }
      : false,
    logging: false,
    context: async (init): Promise<GraphQLContext> => {
      // The current surface; a query pins one snapshot of it (usePinnedSurface).
      const surface = rt.surface;
      if ("wsCaller" in init) return { runtime: rt, caller: init.wsCaller ?? null, holdCaller, surface };
      const request = (init as unknown as { request: Request }).request;
      return {
        runtime: rt,
        caller: await authenticate(rt, request.headers.get("authorization")),
        signal: request.signal,
        holdCaller,
        surface,
      };
    },
    plugins: [
      // Every result, on every transport, leaves scrubbed of the runtime's secrets.
      useScrubbedResults(rt.secrets),
      usePinnedSurface(rt.surface),
      csrfPrevention(),
      operationLimits(),
      // After armor's: a document nested too deep is refused before any parse runs.
      useDocumentDepthLimit(),
      useInputErrorCodes(),
      useShedStatus(),
    ],
  });
}

/**
 * GraphiQL's page, served without the network. Yoga's own page loads GraphiQL's scripts,
 * styles and editor workers from unpkg.com, so on an offline machine it stays blank;
 * `@graphql-yoga/render-graphiql` inlines the same bundle. The page is rendered once:
 * its options never change. That bundle is about 9 MB of JavaScript, so it is loaded on
 * the first request for the page, not at start.
 */
function offlineGraphiQL(): (options: GraphiQLOptions) => Promise<string> {
  let page: Promise<string> | undefined;
  return (options) =>
    (page ??= import("@graphql-yoga/render-graphiql").then(
      (m) => m.renderGraphiQL(options),
      (e: unknown) => {
        page = undefined;
        throw e;
      },
    ));
}
