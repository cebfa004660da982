import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { YogaServerInstance } from "graphql-yoga";
import { WebSocketServer } from "ws";
import type { GraphQLContext } from "../graphql/context.ts";
import { mcpHttpDoor } from "../mcp/http-door.ts";
import type { Runtime } from "../runtime.ts";
import { handleCallback } from "./callbacks.ts";
import { dashboardRoutes } from "./dashboard.ts";
import { serveGraphqlWs } from "./graphql-ws.ts";
import { hostGuard, refuseHost } from "./hosts.ts";
import { KeyStreams } from "./key-streams.ts";
import { opsRoutes } from "./ops-routes.ts";
import { verifyOrigin } from "./origins.ts";
import { PendingAnswers } from "./pending-answers.ts";
import { serveProtectedResource } from "./protected-resource.ts";
import { Readiness } from "./ready.ts";
import { logSocketFaults } from "./ws-faults.ts";
import { buildYoga } from "./yoga.ts";

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
  /** Resolves once every request in flight (event streams aside) is answered, or after `timeoutMs`. */
  answered(timeoutMs: number): Promise<void>;
  /** Stops accepting connections and closes every socket. */
  stop(): Promise<void>;
}

/**
 * Builds yoga (HTTP, GraphiQL, SSE) and graphql-ws on one node:http server and path, and serves the dashboard
 * (`/dashboard`).
 */
export function buildApp(rt: Runtime): TaiServer {
  const { config } = rt;
  const tokenPollMs = config.identity && config.identity.pollSeconds * 1000;
  const keyStreams = new KeyStreams(rt.bus, rt.keys, rt.log, REVOCATION_POLL_MS, tokenPollMs);
  const holdCaller = keyStreams.hold.bind(keyStreams);
  const yoga = buildYoga(rt, holdCaller);

  const hostOk = hostGuard(config);
  const readiness = new Readiness(rt);
  const ops = opsRoutes(rt, readiness);
  const mcp = mcpHttpDoor(rt, { holdCaller });
  const dashboard = dashboardRoutes(undefined, config.identity ?? null);
  const pending = new PendingAnswers();
  const server = createServer(requestTimeouts(config), (req, res) => {
    pending.track(req, res);
    if (hostOk && !hostOk(req.headers.host)) return refuseHost(res, req);
    // A stopping instance moves keep-alive clients (a balancer's pooled connections) off.
    if (readiness.draining) res.setHeader("connection", "close");
    if (ops(req, res)) return;
    if (serveProtectedResource(rt, req, res)) return;
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

  serveGraphqlWs(rt, wss, yoga, keyStreams);
  logSocketFaults(wss, rt.log);

  return {
    yoga: yoga as unknown as TaiServer["yoga"],
    server,
    readiness,
    answered: (timeoutMs) => pending.settled(timeoutMs),
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
      await closeSockets(wss);
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

/** Closes every WebSocket client (1001), then the socket server. */
async function closeSockets(wss: WebSocketServer): Promise<void> {
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
}
