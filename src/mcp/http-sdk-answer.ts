import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  isInitializeRequest,
  type InitializeRequest,
  type JSONRPCNotification,
  type JSONRPCRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { Caller } from "../auth/roles.ts";
import { holdCallerKey, type McpDoorContext, type McpExchange } from "./http-context.ts";
import { sendResponse, webRequest } from "./http-io.ts";
import { createMcpServer } from "./mcp-server.ts";
import { answersAsStream } from "./sends-before-answer.ts";
import type { McpSession } from "./sessions.ts";
import type { Elicit } from "./tool-call.ts";

/** How long the headers of a streamed answer wait for its first event (sent together, they cost one write). */
const ANSWER_HEADERS_HOLD_MS = 50;

type Transport = WebStandardStreamableHTTPServerTransport;

/**
 * Answers the requests of a POST with a fresh SDK server and transport for its caller; an
 * initialize without a session opens one (when sessions are on).
 */
export async function answerRequests(
  ctx: McpDoorContext,
  exchange: McpExchange,
  batch: boolean,
  requests: JSONRPCRequest[],
): Promise<void> {
  const { req, res, caller, session, cors } = exchange;
  const opened = await openSession(ctx, caller, session, requests);
  const current = session ?? opened;
  const transport = new WebStandardStreamableHTTPServerTransport({
    enableJsonResponse: !answersAsStream(requests, current, ctx.rt.surface),
  });
  const gone = new AbortController();
  const server = createMcpServer(ctx.rt, { caller, elicit: elicitFor(ctx, current, transport, gone.signal) });
  await server.connect(transport);
  const cancellation = watchCancellation(transport, requests.length);
  const release = current
    ? ctx.relay.hold(
        current.id,
        requests.map((r) => r.id),
        { cancel: cancellation.cancel },
      )
    : () => {};
  // A client that goes away does not cancel its calls (MCP: disconnection is not
  // cancellation); only what waits on it (an elicitation) gives up.
  // A revoked key's open answer stream (progress, elicitation) ends like its GET streams.
  const releaseKey = holdCallerKey(ctx, caller, (reason) => {
    gone.abort(new Error(reason));
    void transport.close();
  });
  res.once("close", () => {
    gone.abort(new Error("the client went away"));
    release();
    releaseKey();
  });
  const parsed: JSONRPCRequest | JSONRPCRequest[] = batch ? requests : requests[0];
  const response = await Promise.race([
    transport.handleRequest(webRequest(req), { parsedBody: parsed }),
    cancellation.answer,
  ]);
  if (!response) return void res.writeHead(202, cors).end();
  // An initialize the transport refused (a bad Accept, a batch) opens no session.
  const kept = opened && response.ok ? opened : null;
  if (opened && !kept) await ctx.sessions.close(opened.id).catch(() => {});
  await sendResponse(res, response, kept ? { ...cors, "mcp-session-id": kept.id } : cors, ANSWER_HEADERS_HOLD_MS);
}

/** The session an initialize opens: only without a session, and when sessions are on. */
async function openSession(
  ctx: McpDoorContext,
  caller: Caller,
  session: McpSession | null,
  requests: JSONRPCRequest[],
): Promise<McpSession | null> {
  const init = requests.find((r) => r.method === "initialize" && isInitializeRequest(r)) as
    InitializeRequest | undefined;
  return init && !session && ctx.rt.config.mcpSessions ? await ctx.sessions.open(caller, init.params) : null;
}

/** How a call asks its client (an elicitation): only in a session whose client can be asked; gives up when it goes. */
function elicitFor(
  ctx: McpDoorContext,
  session: McpSession | null,
  transport: Transport,
  gone: AbortSignal,
): Elicit | null {
  return session?.elicitation
    ? (extra, params, signal) =>
        ctx.relay.ask(session.id, transport, extra.requestId, params, AbortSignal.any([signal, gone]))
    : null;
}

/**
 * A cancelled request is never answered: a JSON answer becomes an empty 202, and a
 * stream ends once nothing else is on it, after the SDK server has taken the
 * cancellation (it does so on a microtask). A batch's stream ends with its client.
 * `answer` resolves (with null) when the one request is cancelled; `cancel` takes the notification.
 */
function watchCancellation(
  transport: Transport,
  count: number,
): { answer: Promise<null>; cancel: (notification: JSONRPCNotification) => void } {
  let answerCancelled = () => {};
  const answer = new Promise<null>((resolve) => (answerCancelled = () => resolve(null)));
  const cancelled = () => {
    if (count !== 1) return;
    answerCancelled();
    setImmediate(() => void transport.close());
  };
  // The SDK server aborts the request's handler (its `extra.signal`), which cancels the run.
  const cancel = (notification: JSONRPCNotification) => {
    transport.onmessage?.(notification);
    cancelled();
  };
  return { answer, cancel };
}
