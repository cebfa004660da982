import type { JSONRPCNotification } from "@modelcontextprotocol/sdk/types.js";
import type { McpDoorContext, McpExchange } from "./http-context.ts";
import { statusHeaders } from "./http-status.ts";
import { answerPlainCall, type PlainCall } from "./plain-call.ts";

/**
 * A plain call (plain-call.ts): its answer is one JSON body, with the headers the SDK's
 * transport gives it (a shed call: 503 with Retry-After, http-status.ts); a cancelled call is answered with an empty
 * 202, as there.
 */
export async function answerPlain(ctx: McpDoorContext, exchange: McpExchange, call: PlainCall): Promise<void> {
  const { res, caller, session, cors } = exchange;
  const stop = new AbortController();
  let cancelled = false;
  const cancel = (notification: JSONRPCNotification) => {
    if (cancelled) return;
    cancelled = true;
    stop.abort((notification.params as { reason?: unknown } | undefined)?.reason);
    res.writeHead(202, cors).end();
  };
  const release = session ? ctx.relay.hold(session.id, [call.id], { cancel }) : () => {};
  res.once("close", release);
  const { message, status } = await answerPlainCall(ctx.rt, { caller, elicit: null }, call, stop.signal);
  if (cancelled) return;
  const json = JSON.stringify(message);
  res
    .writeHead(status?.status ?? 200, { ...cors, ...statusHeaders(status), "content-type": "application/json" })
    .end(json);
}
