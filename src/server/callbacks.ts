import type { IncomingMessage, ServerResponse } from "node:http";
import { contentionError } from "../db/contention.ts";
import { ApiError, type ApiErrorCode } from "../errors.ts";
import { failureLogOf } from "../failure-log.ts";
import type { Runtime } from "../runtime.ts";
import { scrubExcept } from "../secrets/value-fields.ts";
import { tooDeepAt, tooDeepMessage } from "../tools/json-depth.ts";
import { readBody } from "./read-body.ts";

const STATUS: Record<ApiErrorCode, number> = {
  NOT_FOUND: 404,
  CONFLICT: 409,
  BAD_USER_INPUT: 400,
  INVALID_INPUT: 400,
  FORBIDDEN: 403,
  UNAUTHENTICATED: 401,
  UNAVAILABLE: 503,
};

const REPLY_STRUCTURE: ReadonlySet<string> = new Set(["code", "runId", "status"]);

/**
 * `POST /callbacks/<token>`: an external system answers an `ask_external` interaction
 * with a JSON body. The unguessable token is the credential; a replay is refused (409).
 */
export async function handleCallback(
  rt: Runtime,
  req: IncomingMessage,
  res: ServerResponse,
  token: string,
): Promise<void> {
  const reply = (status: number, body: Record<string, unknown>) => {
    res.writeHead(status, { "content-type": "application/json" });
    // An edge like any other: the body's values leave scrubbed of the runtime's secrets (its code, run id and status
    // are structure).
    res.end(JSON.stringify(scrubExcept(rt.secrets, body, REPLY_STRUCTURE)));
  };
  if (req.method !== "POST") return reply(405, { error: "use POST with a JSON body" });
  const limit = rt.config.maxBodyBytes;
  const read = await readBody(req, limit);
  // Nobody is left to answer, or the client kept sending far past the limit.
  if (!read.ok && read.reason === "gone") return void res.destroy();
  if (!read.ok) {
    res.setHeader("connection", "close");
    return reply(413, { error: `the body exceeds ${limit} bytes`, code: "BAD_USER_INPUT" });
  }
  let payload: unknown;
  try {
    payload = read.body.length ? JSON.parse(read.body.toString("utf8")) : null;
  } catch (e) {
    return reply(400, { error: `the body is not valid JSON (${(e as Error).message})` });
  }
  const deep = tooDeepAt(payload);
  if (deep !== null) return reply(400, { error: tooDeepMessage(deep), code: "BAD_USER_INPUT" });
  try {
    const run = await rt.interactions.answerByToken(token, payload);
    return reply(200, { runId: run.id, status: run.status });
  } catch (e) {
    const typed = e instanceof ApiError ? e : contentionError(e);
    if (typed) {
      if (typed.retryAfterSeconds !== undefined)
        res.setHeader("retry-after", String(Math.ceil(typed.retryAfterSeconds)));
      return reply(STATUS[typed.code], {
        error: typed.message,
        code: typed.code,
        ...(typed.retryable ? { retryable: true } : {}),
        ...(typed.issues.length ? { issues: typed.issues } : {}),
      });
    }
    const text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    failureLogOf(rt, rt.log).failed("error", "callback failed", { error: text }, text.slice(0, 200));
    return reply(500, { error: "unexpected error" });
  }
}
