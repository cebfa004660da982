import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createYoga, type GraphiQLOptions, type YogaServerInstance } from "graphql-yoga";
import { GraphQLError, type ExecutionArgs } from "graphql";
import { useServer } from "graphql-ws/use/ws";
import { WebSocketServer } from "ws";
import type { Caller } from "../auth/roles.ts";
import { ApiError } from "../errors.ts";
import type { GraphQLContext } from "../graphql/context.ts";
import { maskError } from "../graphql/errors.ts";
import { useInputErrorCodes } from "../graphql/input-error-codes.ts";
import { useScrubbedResults } from "../graphql/scrub-results.ts";
import { usePinnedSurface } from "../graphql/pinned-surface.ts";
import { schema } from "../graphql/schema.ts";
import type { Runtime } from "../runtime.ts";
import { authenticate } from "./authenticate.ts";
import { handleCallback } from "./callbacks.ts";
import { csrfPrevention } from "./csrf.ts";
import { dashboardRoutes } from "./dashboard.ts";
import { KeyStreams } from "./key-streams.ts";
import { operationLimits } from "./limits.ts";
import { useDocumentDepthLimit } from "../graphql/document-depth.ts";
import { verifyOrigin } from "./origins.ts";
import { hostGuard, refuseHost } from "./hosts.ts";
import { closeReason, connectionAuthorization, operationAuthorization } from "./ws-auth.ts";
import { logSocketFaults } from "./ws-faults.ts";
import { opsRoutes } from "./ops-routes.ts";
import { Readiness } from "./ready.ts";
import { mcpHttpDoor } from "../mcp/http-door.ts";

/** How long {@link TaiServer.stop} waits for WebSocket clients to answer the close before cutting them off. */
const WS_CLOSE_GRACE_MS = 1000;

/** How often the keys holding open streams are checked for revocation (see {@link KeyStreams}). */
const REVOCATION_POLL_MS = 5000;

/** The HTTP + WebSocket server around a runtime. */
export interface TaiServer {
  yoga: YogaServerInstance<Record<string, unknown>, GraphQLContext>;
  server: Server;
  /** What `/ready` answers; a graceful stop drains it first (`serve.ts`). */
  readiness: Readiness;
  /** Listens; resolves with the bound URL of /graphql. */
  start(port?: number, host?: string): Promise<string>;
  /** Stops accepting connections and closes every socket. */
  stop(): Promise<void>;
}

interface ServerContext {
  req?: IncomingMessage;
  /** Set for graphql-ws operations: the caller authenticated on connection_init. */
  wsCaller?: Caller | null;
}

/**
 * Builds yoga (HTTP, GraphiQL, SSE) and graphql-ws on one node:http server and path, and serves the dashboard
 * (`/dashboard`).
 */
export function buildApp(rt: Runtime): TaiServer {
  const { config } = rt;
  const keyStreams = new KeyStreams(rt.bus, rt.keys, rt.log, REVOCATION_POLL_MS);
  const holdKey = keyStreams.hold.bind(keyStreams);
  const yoga = createYoga<ServerContext, GraphQLContext>({
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
      if ("wsCaller" in init) return { runtime: rt, caller: init.wsCaller ?? null, holdKey, surface };
      const request = (init as unknown as { request: Request }).request;
      return {
        runtime: rt,
        caller: await authenticate(rt, request.headers.get("authorization")),
        signal: request.signal,
        holdKey,
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
    ],
  });

  const hostOk = hostGuard(config);
  const readiness = new Readiness(rt);
  const ops = opsRoutes(rt, readiness);
  const mcp = mcpHttpDoor(rt, { holdKey });
  const dashboard = dashboardRoutes();
  const server = createServer(requestTimeouts(config), (req, res) => {
    if (hostOk && !hostOk(req.headers.host)) return refuseHost(res, req);
    if (ops(req, res)) return;
    if (/^\/mcp\/?(\?|$)/.test(req.url ?? "")) return mcp.handle(req, res);
    if (dashboard(req, res)) return;
    const m = /^\/callbacks\/([A-Za-z0-9_-]{20,100})\/?$/.exec(req.url ?? "");
    if (m) return void handleCallback(rt, req, res, m[1]);
    return yoga(req, res);
  });
  const wss = new WebSocketServer({
    server,
    path: "/graphql",
    maxPayload: config.maxBodyBytes,
    verifyClient: verifyOrigin(config.corsOrigins, rt.log.warn, hostOk),
  });

  useServer<Record<string, unknown> | undefined, { caller?: Caller | null }>(
    {
      execute: (args) => (args.rootValue as { execute: (a: ExecutionArgs) => never }).execute(args),
      subscribe: (args) => (args.rootValue as { subscribe: (a: ExecutionArgs) => never }).subscribe(args),
      // The socket is authenticated once, on connection_init; a bad key refuses it.
      onConnect: async (ctx) => {
        const socket = ctx.extra.socket;
        try {
          const caller = await authenticate(rt, connectionAuthorization(ctx.connectionParams));
          ctx.extra.caller = caller;
          if (caller?.keyId)
            socket.once(
              "close",
              keyStreams.hold(caller.keyId, () => socket.close(4403, "Forbidden: the API key was revoked")),
            );
          return true;
        } catch (e) {
          if (!(e instanceof ApiError)) throw e;
          socket.close(4403, closeReason(`Forbidden: ${e.message}`)); // graphql-ws's own close says only "Forbidden"
          return false;
        }
      },
      onSubscribe: async (ctx, _id, params) => {
        // An operation carrying its own Authorization header (GraphiQL sends its Headers tab
        // so) runs as that key; the socket's caller otherwise. A bad key fails the operation.
        let caller = ctx.extra.caller ?? null;
        try {
          const authorization = operationAuthorization(params.extensions);
          if (authorization !== undefined) caller = await authenticate(rt, authorization);
        } catch (e) {
          if (!(e instanceof ApiError)) throw e;
          return [new GraphQLError(e.message, { extensions: { code: e.code } })];
        }
        const {
          schema: s,
          execute,
          subscribe,
          contextFactory,
          parse,
          validate,
        } = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params,
          wsCaller: caller,
        });
        let document;
        try {
          document = parse(params.query);
        } catch (e) {
          return [e as never];
        }
        const args = {
          schema: s,
          operationName: params.operationName,
          document,
          variableValues: params.variables,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe },
        } as ExecutionArgs;
        const errors = validate(args.schema, args.document);
        if (errors.length) return errors;
        return args;
      },
    },
    wss,
  );
  logSocketFaults(wss, rt.log);

  return {
    yoga: yoga as unknown as TaiServer["yoga"],
    server,
    readiness,
    start(port = config.port, host = config.host) {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          const a = server.address() as AddressInfo;
          const h = a.family === "IPv6" ? `[${a.address}]` : a.address;
          if (!config.publicUrl) rt.publicUrl = `http://${h}:${a.port}`;
          resolve(`http://${h}:${a.port}/graphql`);
        });
      });
    },
    async stop() {
      keyStreams.close();
      mcp.close();
      const closed = new Promise<void>((r) => server.close(() => r()));
      const sockets = [...wss.clients].map(
        (c) => new Promise<void>((r) => (c.readyState === c.CLOSED ? r() : c.once("close", () => r()))),
      );
      for (const c of wss.clients) c.close(1001, "server shutting down");
      // A client that stopped reading never completes the close handshake (ws would wait
      // 30 s for it): it is cut off after a short grace.
      const grace = setTimeout(() => wss.clients.forEach((c) => c.terminate()), WS_CLOSE_GRACE_MS);
      await Promise.all(sockets);
      clearTimeout(grace);
      await new Promise<void>((r) => wss.close(() => r()));
      server.closeAllConnections?.();
      await closed;
    },
  };
}

/**
 * How long a client may take to send a request (docs/deploy.md §"Request timeouts"):
 * Node times the receipt of the headers and of the whole request from its first byte,
 * never the response, so streams and long dispatches are not cut; a stalled client is
 * answered 408 and closed. Node checks every 30 s by default, which would hold a stalled
 * socket up to that much longer: here a quarter of the shorter timeout.
 */
function requestTimeouts(config: Runtime["config"]) {
  const requestTimeout = Math.round(config.requestTimeoutSeconds * 1000);
  const headersTimeout = Math.round(config.headersTimeoutSeconds * 1000);
  return {
    requestTimeout,
    headersTimeout,
    connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.round(headersTimeout / 4))),
  };
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
