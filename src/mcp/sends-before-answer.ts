import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Surface } from "../registry/surface.ts";
import type { McpSession } from "./sessions.ts";

/**
 * Whether the answer to these requests is an event stream (SSE) rather than one JSON
 * body: when a call may send something before it answers, that is progress (the client
 * sent a progress token), or an elicitation (a tool that may pause, and a session whose
 * client can be asked). Anything else answers as JSON.
 */
export function answersAsStream(requests: JSONRPCRequest[], session: McpSession | null, surface: Surface): boolean {
  return requests.some(
    (r) => r.method === "tools/call" && sendsBeforeAnswer(r.params as CallParams | undefined, session, surface),
  );
}

type CallParams = { name?: unknown; _meta?: { progressToken?: unknown } };

/** Whether a `tools/call` may send something before its answer: progress, or an elicitation. */
export function sendsBeforeAnswer(
  params: CallParams | undefined,
  session: McpSession | null,
  surface: Surface,
): boolean {
  if (params?._meta?.progressToken !== undefined) return true;
  return (
    session?.elicitation === true && typeof params?.name === "string" && surface.resolve(params.name)?.pauses === true
  );
}
