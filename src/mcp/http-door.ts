import type { IncomingMessage, ServerResponse } from "node:http";
import type { Caller } from "../auth/roles.ts";
import { ApiError } from "../errors.ts";
import type { Runtime } from "../runtime.ts";
import { authenticate } from "../server/authenticate.ts";
import { originAllowed } from "../server/origins.ts";
import { bearerChallenge, identityConfigured } from "../server/protected-resource.ts";
import type { Headers, McpDoorContext, McpExchange, McpHttpOptions } from "./http-context.ts";
import { corsHeaders, sendError, sendPreflight } from "./http-io.ts";
import { listen } from "./http-listen.ts";
import { post } from "./http-post.ts";
import { SessionRelay } from "./session-relay.ts";
import { McpSessions, ownsSession, type McpSession } from "./sessions.ts";

export type { McpHttpOptions } from "./http-context.ts";

/** The `/mcp` endpoint, mounted by the server beside `/graphql`. */
export interface McpHttpDoor {
  /** Answers one request for `/mcp`. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Ends the open streams and stops listening on the bus. */
  close(): void;
}

/**
 * MCP over Streamable HTTP (docs/mcp.md), built on the SDK's web-standard transport: a
 * fresh SDK server and transport per HTTP request, for the caller of that request, so
 * that nothing of a session lives in one instance (sessions.ts, session-relay.ts). The
 * server's Host check has run before; here: the Origin allow-list, the caller from
 * `Authorization: Bearer <key>` exactly as for GraphQL (401 for a bad key, the anonymous
 * role without one), the body limit, then the session.
 */
export function mcpHttpDoor(rt: Runtime, options: McpHttpOptions = {}): McpHttpDoor {
  const ctx: McpDoorContext = {
    rt,
    options,
    sessions: new McpSessions(rt.db, rt.bus),
    relay: new SessionRelay(rt.bus),
    streams: new Set(),
  };
  return {
    handle(req, res) {
      handle(ctx, req, res).catch((e: unknown) => {
        rt.log.error("the MCP endpoint failed", { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
        if (!res.headersSent) sendError(res, 500, -32603, "Internal error");
        else res.destroy();
      });
    },
    close() {
      for (const end of [...ctx.streams]) end();
      ctx.relay.dispose();
      ctx.sessions.dispose();
    },
  };
}

/** One request: the origin, the caller, the session, then the method. */
async function handle(ctx: McpDoorContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const admitted = await admit(ctx, req, res);
  if (!admitted) return;
  const { caller, cors } = admitted;
  const sessionId = req.headers["mcp-session-id"];
  let session: McpSession | null = null;
  if (sessionId !== undefined) {
    session = typeof sessionId === "string" ? await ctx.sessions.find(sessionId) : null;
    // Another caller's session does not exist for this one.
    if (!session || !ownsSession(caller, session)) return sendError(res, 404, -32001, "Session not found", cors);
  }
  const exchange: McpExchange = { req, res, caller, session, cors };
  if (req.method === "POST") return post(ctx, exchange);
  if (req.method === "GET") return listen(ctx, exchange);
  if (req.method === "DELETE" && session) {
    await ctx.sessions.close(session.id);
    res.writeHead(200, cors).end();
    return;
  }
  return sendError(res, 405, -32000, "Method not allowed", {
    ...cors,
    allow: session ? "GET, POST, DELETE" : "GET, POST",
  });
}

/**
 * The origin and the caller of a request, with the CORS headers of its answer; null when the
 * request has been answered (a refused origin, a preflight, a bad key, no anonymous access).
 */
async function admit(
  ctx: McpDoorContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<{ caller: Caller; cors: Headers } | null> {
  const { rt } = ctx;
  const { config } = rt;
  const origin = req.headers.origin;
  if (origin !== undefined && !originAllowed(origin, req.headers.host, config.corsOrigins)) {
    rt.log.warn("refused an MCP request from a disallowed origin", { origin: origin.slice(0, 200) });
    sendError(res, 403, -32000, "Forbidden: this origin may not call /mcp (see TAI_CORS_ORIGINS)");
    return null;
  }
  const cors = corsHeaders(origin, config.corsOrigins);
  if (req.method === "OPTIONS") {
    sendPreflight(res, cors);
    return null;
  }
  let caller: Caller | null;
  try {
    caller = await authenticate(rt, req.headers.authorization);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    refuseCredential(rt, req, res, e, cors);
    return null;
  }
  if (!caller) {
    const credential = identityConfigured(rt) ? "key or access token" : "key";
    sendError(
      res,
      401,
      -32000,
      `Unauthorized: anonymous access is off (TAI_ANONYMOUS_ROLE=NONE): send Authorization: Bearer <${credential}>`,
      { ...cors, "www-authenticate": bearerChallenge(rt) },
    );
    return null;
  }
  return { caller, cors };
}

/**
 * Answers a request whose credential `authenticate` refused: `401` with the Bearer challenge (`invalid_token` for a
 * Bearer value that did not verify, `invalid_request` for any other); `503` when the credential could not be checked
 * (an issuer out of reach): the client should retry, not sign in again.
 */
function refuseCredential(rt: Runtime, req: IncomingMessage, res: ServerResponse, e: ApiError, cors: Headers): void {
  if (e.code !== "UNAUTHENTICATED") {
    const retry: Headers =
      e.retryAfterSeconds === undefined ? {} : { "retry-after": String(Math.ceil(e.retryAfterSeconds)) };
    return sendError(res, 503, -32000, `Unavailable: ${e.message}`, { ...cors, ...retry });
  }
  const error = /^Bearer\s+\S+$/i.test(req.headers.authorization ?? "") ? "invalid_token" : "invalid_request";
  const challenge = bearerChallenge(rt, { error, description: e.message });
  sendError(res, 401, -32000, `Unauthorized: ${e.message}`, { ...cors, "www-authenticate": challenge });
}
