import { isJSONRPCRequest, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { readBody } from "../server/read-body.ts";
import type { McpDoorContext, McpExchange } from "./http-context.ts";
import { sendError } from "./http-io.ts";
import { answerPlain } from "./http-plain-answer.ts";
import { answerRequests } from "./http-sdk-answer.ts";
import { plainCall } from "./plain-call.ts";
import { sendsBeforeAnswer } from "./sends-before-answer.ts";

/** A POST: requests go to an SDK server; responses and notifications are relayed to the request they concern. */
export async function post(ctx: McpDoorContext, exchange: McpExchange): Promise<void> {
  const { req, res, session, cors } = exchange;
  const read = await readJson(ctx, exchange);
  if (!read.ok) return;
  const body = read.body;
  // One plain tools/call that sends nothing before its answer: answered without the SDK's
  // server and transport, exactly as they would answer it (plain-call.ts).
  const call = plainCall(req, body);
  if (call && !sendsBeforeAnswer(call.params, session, ctx.rt.surface)) return answerPlain(ctx, exchange, call);
  const messages = Array.isArray(body) ? body : [body];
  const requests = messages.filter(isJSONRPCRequest);
  const others = messages.filter((m) => !isJSONRPCRequest(m));
  if (others.some((m) => !JSONRPCMessageSchema.safeParse(m).success))
    return sendError(res, 400, -32700, "Parse error: Invalid JSON-RPC message", cors);
  if (session) for (const m of others) ctx.relay.fromClient(session.id, m);
  if (!requests.length) {
    res.writeHead(202, cors).end();
    return;
  }
  return answerRequests(ctx, exchange, Array.isArray(body), requests);
}

/** Reads the body (within the limit) and parses it as JSON; when it cannot, the answer has been sent. */
async function readJson(
  ctx: McpDoorContext,
  { req, res, cors }: McpExchange,
): Promise<{ ok: true; body: unknown } | { ok: false }> {
  const { maxBodyBytes } = ctx.rt.config;
  const read = await readBody(req, maxBodyBytes);
  if (!read.ok && read.reason === "gone") {
    res.destroy();
    return { ok: false };
  }
  if (!read.ok) {
    sendError(res, 413, -32000, `the body exceeds ${maxBodyBytes} bytes (TAI_MAX_BODY_BYTES)`, {
      ...cors,
      connection: "close",
    });
    return { ok: false };
  }
  try {
    return { ok: true, body: JSON.parse(read.body.toString("utf8")) };
  } catch {
    sendError(res, 400, -32700, "Parse error: Invalid JSON", cors);
    return { ok: false };
  }
}
