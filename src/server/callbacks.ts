import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError } from "../errors.ts";
import type { Runtime } from "../runtime.ts";
import { tooDeepAt, tooDeepMessage } from "../tools/json-depth.ts";

/** An oversized body is drained up to this many times the limit before the socket is cut. */
const DRAIN_FACTOR = 8;

const STATUS: Record<string, number> = { NOT_FOUND: 404, CONFLICT: 409, BAD_USER_INPUT: 400, FORBIDDEN: 403, UNAUTHENTICATED: 401 };

/**
 * `POST /callbacks/<token>`: an external system answers an `ask_external` interaction
 * with a JSON body. The unguessable token is the credential; a replay is refused (409).
 */
export async function handleCallback(rt: Runtime, req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
  const reply = (status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    // An edge like any other: the body leaves scrubbed of the runtime's secrets.
    res.end(rt.secrets.scrubText(JSON.stringify(body)));
  };
  if (req.method !== "POST") return reply(405, { error: "use POST with a JSON body" });
  const limit = rt.config.maxBodyBytes;
  let size = 0;
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size <= limit) chunks.push(chunk as Buffer);
      // An oversized body is read to its end (up to a bound), so the 413 reaches a client
      // still sending and the connection closes cleanly: answering mid-body and closing
      // with unread data in the socket makes the kernel reset it.
      else if (size > limit * DRAIN_FACTOR) return void res.destroy();
    }
    if (size > limit) {
      res.setHeader("connection", "close");
      return reply(413, { error: `the body exceeds ${limit} bytes`, code: "BAD_USER_INPUT" });
    }
  } catch {
    // The client went away before the body ended: nobody is left to answer, nothing was
    // answered. (Left uncaught, this rejection would take the whole server down.)
    return void res.destroy();
  }
  let payload: unknown;
  try {
    payload = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : null;
  } catch (e) {
    return reply(400, { error: `the body is not valid JSON (${(e as Error).message})` });
  }
  const deep = tooDeepAt(payload);
  if (deep !== null) return reply(400, { error: tooDeepMessage(deep), code: "BAD_USER_INPUT" });
  try {
    const run = await rt.interactions.answerByToken(token, payload);
    return reply(200, { runId: run.id, status: run.status });
  } catch (e) {
    if (e instanceof ApiError) return reply(STATUS[e.code] ?? 400, { error: e.message, code: e.code, ...(e.issues.length ? { issues: e.issues } : {}) });
    rt.log.error("callback failed", { error: (e as Error).message });
    return reply(500, { error: "unexpected error" });
  }
}
