import type { IncomingMessage, ServerResponse } from "node:http";
import { listedOrigin } from "../server/origins.ts";

/** Headers a browser page may send to `/mcp` and read back (when CORS lets it). */
const ALLOW_HEADERS = "authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id";
const EXPOSE_HEADERS = "mcp-session-id, mcp-protocol-version, www-authenticate";

/** The request as the SDK's web-standard transport reads it. The body is read (and limited) by the door itself. */
export function webRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  // The Host was checked by the server (hosts.ts); the URL only carries the path.
  return new Request(`http://localhost${req.url ?? "/mcp"}`, { method: req.method, headers });
}

/**
 * Writes the transport's answer to the node response, with `extra` headers. A JSON
 * answer is written at once. An event stream is piped as it comes, and abandoned when
 * the client goes away; its headers wait up to `holdHeadersMs` for its first event, and
 * events that come together (a call's answer and the stream's end) leave in one write:
 * the socket is corked until the next turn of the event loop. A call that answers
 * quickly costs one write, like a JSON answer.
 */
export async function sendResponse(
  res: ServerResponse,
  response: Response,
  extra: Record<string, string>,
  holdHeadersMs = 0,
): Promise<void> {
  const headers: Record<string, string> = { ...extra };
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  if (!headers["content-type"]?.startsWith("text/event-stream"))
    return void res.end(Buffer.from(await response.arrayBuffer()));
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  res.once("close", cancel);
  const early = setTimeout(() => res.flushHeaders(), holdHeadersMs);
  let corked: NodeJS.Immediate | null = null;
  const flush = () => {
    if (!corked) return;
    clearImmediate(corked);
    corked = null;
    res.uncork();
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      clearTimeout(early);
      if (!corked) {
        res.cork();
        corked = setImmediate(flush);
      }
      res.write(value);
    }
  } catch {
    // The stream failed or was cancelled: the response ends here.
  } finally {
    clearTimeout(early);
    res.off("close", cancel);
    res.end();
    flush();
  }
}

/** Answers with a JSON-RPC error body (no id: it answers the HTTP request, not a message). */
export function sendError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
  });
  res.end(body);
}

/** CORS headers for an origin listed in `TAI_CORS_ORIGINS`; none for any other (same-origin only). */
export function corsHeaders(origin: string | undefined, allowed: readonly string[]): Record<string, string> {
  if (!origin || !listedOrigin(origin, allowed)) return {};
  return { "access-control-allow-origin": origin, vary: "Origin", "access-control-expose-headers": EXPOSE_HEADERS };
}

/** Answers a CORS preflight: the methods and headers of the MCP transport, for a listed origin. */
export function sendPreflight(res: ServerResponse, cors: Record<string, string>): void {
  const allow = cors["access-control-allow-origin"]
    ? {
        "access-control-allow-methods": "GET, POST, DELETE",
        "access-control-allow-headers": ALLOW_HEADERS,
        "access-control-max-age": "600",
      }
    : {};
  res.writeHead(204, { ...cors, ...allow });
  res.end();
}
