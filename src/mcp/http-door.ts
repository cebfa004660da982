import type { IncomingMessage, ServerResponse } from "node:http";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  isInitializeRequest,
  isJSONRPCRequest,
  JSONRPCMessageSchema,
  type InitializeRequest,
  type JSONRPCNotification,
  type JSONRPCRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { Caller } from "../auth/roles.ts";
import { ApiError } from "../errors.ts";
import type { Surface } from "../registry/surface.ts";
import type { Runtime } from "../runtime.ts";
import { authenticate } from "../server/authenticate.ts";
import { originAllowed } from "../server/origins.ts";
import { readBody } from "../server/read-body.ts";
import { corsHeaders, sendError, sendPreflight, sendResponse, webRequest } from "./http-io.ts";
import { watchToolList } from "./list-changed.ts";
import { createMcpServer } from "./mcp-server.ts";
import { answerPlainCall, plainCall, type PlainCall } from "./plain-call.ts";
import { SessionRelay } from "./session-relay.ts";
import { McpSessions, ownsSession, type McpSession } from "./sessions.ts";
import type { Elicit } from "./tool-call.ts";

/** The `/mcp` endpoint, mounted by the server beside `/graphql`. */
export interface McpHttpDoor {
  /** Answers one request for `/mcp`. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Ends the open streams and stops listening on the bus. */
  close(): void;
}

/** Options of {@link mcpHttpDoor}. */
export interface McpHttpOptions {
  /**
   * Registers a stream held by an API key; `end` is called if the key is revoked. Returns
   * the release. Contract: as `KeyStreams.hold` (server/key-streams.ts).
   */
  holdKey?: (keyId: string, end: () => void) => () => void;
}

type Headers = Record<string, string>;

/** How long the headers of a streamed answer wait for its first event (sent together, they cost one write). */
const ANSWER_HEADERS_HOLD_MS = 50;

/**
 * MCP over Streamable HTTP (docs/mcp.md), built on the SDK's web-standard transport: a
 * fresh SDK server and transport per HTTP request, for the caller of that request, so
 * that nothing of a session lives in one instance (sessions.ts, session-relay.ts). The
 * server's Host check has run before; here: the Origin allow-list, the caller from
 * `Authorization: Bearer <key>` exactly as for GraphQL (401 for a bad key, the anonymous
 * role without one), the body limit, then the session.
 */
export function mcpHttpDoor(rt: Runtime, options: McpHttpOptions = {}): McpHttpDoor {
  const { config } = rt;
  const sessions = new McpSessions(rt.db, rt.bus);
  const relay = new SessionRelay(rt.bus);
  const streams = new Set<() => void>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const origin = req.headers.origin;
    if (origin !== undefined && !originAllowed(origin, req.headers.host, config.corsOrigins)) {
      rt.log.warn("refused an MCP request from a disallowed origin", { origin: origin.slice(0, 200) });
      return sendError(res, 403, -32000, "Forbidden: this origin may not call /mcp (see TAI_CORS_ORIGINS)");
    }
    const cors = corsHeaders(origin, config.corsOrigins);
    if (req.method === "OPTIONS") return sendPreflight(res, cors);
    let caller: Caller | null;
    try {
      caller = await authenticate(rt, req.headers.authorization);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      return sendError(res, 401, -32000, `Unauthorized: ${e.message}`, {
        ...cors,
        "www-authenticate": 'Bearer realm="tai42"',
      });
    }
    if (!caller)
      return sendError(
        res,
        401,
        -32000,
        "Unauthorized: anonymous access is off (TAI_ANONYMOUS_ROLE=NONE): send Authorization: Bearer <key>",
        {
          ...cors,
          "www-authenticate": 'Bearer realm="tai42"',
        },
      );
    const sessionId = req.headers["mcp-session-id"];
    let session: McpSession | null = null;
    if (sessionId !== undefined) {
      session = typeof sessionId === "string" ? await sessions.find(sessionId) : null;
      // Another caller's session does not exist for this one.
      if (!session || !ownsSession(caller, session)) return sendError(res, 404, -32001, "Session not found", cors);
    }
    if (req.method === "POST") return post(req, res, caller, session, cors);
    if (req.method === "GET") return listen(req, res, caller, cors);
    if (req.method === "DELETE" && session) {
      await sessions.close(session.id);
      res.writeHead(200, cors).end();
      return;
    }
    return sendError(res, 405, -32000, "Method not allowed", {
      ...cors,
      allow: session ? "GET, POST, DELETE" : "GET, POST",
    });
  }

  /** A POST: requests go to an SDK server; responses and notifications are relayed to the request they concern. */
  async function post(
    req: IncomingMessage,
    res: ServerResponse,
    caller: Caller,
    session: McpSession | null,
    cors: Headers,
  ): Promise<void> {
    const read = await readBody(req, config.maxBodyBytes);
    if (!read.ok && read.reason === "gone") return void res.destroy();
    if (!read.ok)
      return sendError(res, 413, -32000, `the body exceeds ${config.maxBodyBytes} bytes (TAI_MAX_BODY_BYTES)`, {
        ...cors,
        connection: "close",
      });
    let body: unknown;
    try {
      body = JSON.parse(read.body.toString("utf8"));
    } catch {
      return sendError(res, 400, -32700, "Parse error: Invalid JSON", cors);
    }
    // One plain tools/call that sends nothing before its answer: answered without the SDK's
    // server and transport, exactly as they would answer it (plain-call.ts).
    const call = plainCall(req, body);
    if (call && !sendsBeforeAnswer(call.params, session, rt.surface))
      return answerPlain(res, caller, session, cors, call);
    const messages = Array.isArray(body) ? body : [body];
    const requests = messages.filter(isJSONRPCRequest);
    const others = messages.filter((m) => !isJSONRPCRequest(m));
    if (others.some((m) => !JSONRPCMessageSchema.safeParse(m).success))
      return sendError(res, 400, -32700, "Parse error: Invalid JSON-RPC message", cors);
    if (session) for (const m of others) relay.fromClient(session.id, m);
    if (!requests.length) {
      res.writeHead(202, cors).end();
      return;
    }
    const init = requests.find((r) => r.method === "initialize" && isInitializeRequest(r)) as
      InitializeRequest | undefined;
    const opened = init && !session && config.mcpSessions ? await sessions.open(caller, init.params) : null;
    const current = session ?? opened;
    const transport = new WebStandardStreamableHTTPServerTransport({
      enableJsonResponse: !answersAsStream(requests, current, rt.surface),
    });
    const gone = new AbortController();
    const elicit: Elicit | null = current?.elicitation
      ? (extra, params, signal) =>
          relay.ask(current.id, transport, extra.requestId, params, AbortSignal.any([signal, gone.signal]))
      : null;
    const server = createMcpServer(rt, { caller, elicit });
    await server.connect(transport);
    // A cancelled request is never answered: a JSON answer becomes an empty 202, and a
    // stream ends once nothing else is on it, after the SDK server has taken the
    // cancellation (it does so on a microtask). A batch's stream ends with its client.
    let answerCancelled = () => {};
    const cancelledAnswer = new Promise<null>((resolve) => (answerCancelled = () => resolve(null)));
    const cancelled = () => {
      if (requests.length !== 1) return;
      answerCancelled();
      setImmediate(() => void transport.close());
    };
    // The SDK server aborts the request's handler (its `extra.signal`), which cancels the run.
    const cancel = (notification: JSONRPCNotification) => {
      transport.onmessage?.(notification);
      cancelled();
    };
    const release = current
      ? relay.hold(
          current.id,
          requests.map((r) => r.id),
          { cancel },
        )
      : () => {};
    // A client that goes away does not cancel its calls (MCP: disconnection is not
    // cancellation); only what waits on it (an elicitation) gives up.
    // A revoked key's open answer stream (progress, elicitation) ends like its GET streams.
    const releaseKey =
      caller.keyId && options.holdKey
        ? options.holdKey(caller.keyId, () => {
            gone.abort(new Error("the key was revoked"));
            void transport.close();
          })
        : () => {};
    res.once("close", () => {
      gone.abort(new Error("the client went away"));
      release();
      releaseKey();
    });
    const parsed: JSONRPCRequest | JSONRPCRequest[] = Array.isArray(body) ? requests : requests[0];
    const response = await Promise.race([
      transport.handleRequest(webRequest(req), { parsedBody: parsed }),
      cancelledAnswer,
    ]);
    if (!response) return void res.writeHead(202, cors).end();
    // An initialize the transport refused (a bad Accept, a batch) opens no session.
    const kept = opened && response.ok ? opened : null;
    if (opened && !kept) await sessions.close(opened.id).catch(() => {});
    await sendResponse(res, response, kept ? { ...cors, "mcp-session-id": kept.id } : cors, ANSWER_HEADERS_HOLD_MS);
  }

  /**
   * A plain call (plain-call.ts): its answer is one JSON body, with the headers the SDK's
   * transport gives it; a cancelled call is answered with an empty 202, as there.
   */
  async function answerPlain(
    res: ServerResponse,
    caller: Caller,
    session: McpSession | null,
    cors: Headers,
    call: PlainCall,
  ): Promise<void> {
    const stop = new AbortController();
    let cancelled = false;
    const cancel = (notification: JSONRPCNotification) => {
      if (cancelled) return;
      cancelled = true;
      stop.abort((notification.params as { reason?: unknown } | undefined)?.reason);
      res.writeHead(202, cors).end();
    };
    const release = session ? relay.hold(session.id, [call.id], { cancel }) : () => {};
    res.once("close", release);
    const answer = await answerPlainCall(rt, { caller, elicit: null }, call, stop.signal);
    if (cancelled) return;
    const json = JSON.stringify(answer);
    res.writeHead(200, { ...cors, "content-type": "application/json" }).end(json);
  }

  /** A GET: the stream of server notifications (`notifications/tools/list_changed`), with or without a session. */
  async function listen(req: IncomingMessage, res: ServerResponse, caller: Caller, cors: Headers): Promise<void> {
    const transport = new WebStandardStreamableHTTPServerTransport();
    const server = createMcpServer(rt, { caller, elicit: null });
    await server.connect(transport);
    const end = () => void server.close().catch(() => {});
    const unwatch = watchToolList(rt.surface, caller, () => void server.sendToolListChanged().catch(() => {}));
    const releaseKey = caller.keyId && options.holdKey ? options.holdKey(caller.keyId, end) : () => {};
    streams.add(end);
    res.once("close", () => {
      unwatch();
      releaseKey();
      streams.delete(end);
      end();
    });
    await sendResponse(res, await transport.handleRequest(webRequest(req)), cors);
  }

  return {
    handle(req, res) {
      handle(req, res).catch((e: unknown) => {
        rt.log.error("the MCP endpoint failed", { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
        if (!res.headersSent) sendError(res, 500, -32603, "Internal error");
        else res.destroy();
      });
    },
    close() {
      for (const end of [...streams]) end();
      relay.dispose();
      sessions.dispose();
    },
  };
}

/**
 * Whether the answer to these requests is an event stream (SSE) rather than one JSON
 * body: when a call may send something before it answers, that is progress (the client
 * sent a progress token), or an elicitation (a tool that may pause, and a session whose
 * client can be asked). Anything else answers as JSON.
 */
function answersAsStream(requests: JSONRPCRequest[], session: McpSession | null, surface: Surface): boolean {
  return requests.some(
    (r) => r.method === "tools/call" && sendsBeforeAnswer(r.params as CallParams | undefined, session, surface),
  );
}

type CallParams = { name?: unknown; _meta?: { progressToken?: unknown } };

/** Whether a `tools/call` may send something before its answer: progress, or an elicitation. */
function sendsBeforeAnswer(params: CallParams | undefined, session: McpSession | null, surface: Surface): boolean {
  if (params?._meta?.progressToken !== undefined) return true;
  return (
    session?.elicitation === true && typeof params?.name === "string" && surface.resolve(params.name)?.pauses === true
  );
}
