import type { IncomingMessage } from "node:http";
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  JSONRPCRequestSchema,
  McpError,
  RELATED_TASK_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolRequest,
  type JSONRPCErrorResponse,
  type JSONRPCResultResponse,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import type { Runtime } from "../runtime.ts";
import { statusOf, type HttpStatus } from "./http-status.ts";
import { masked } from "./masked.ts";
import { callTool, type CallExtra, type McpCallContext } from "./tool-call.ts";

/**
 * One `tools/call` the door may answer without the SDK's server and transport (docs/mcp.md §5, "The JSON fast path").
 */
export interface PlainCall {
  id: RequestId;
  params: CallToolRequest["params"];
}

/**
 * The POST's body as a plain call, or null when the SDK must serve it. Plain: one
 * JSON-RPC request (not a batch) of `tools/call`, valid by the SDK's own schemas, that
 * the SDK's transport would accept as it is (it accepts both JSON and an event stream,
 * its body is JSON by its one Content-Type, its protocol version is supported), with no
 * progress token and no task (nothing to send before the answer, nothing to keep after
 * it). Whether the tool may pause with a client to ask is the door's to check. Anything
 * else (a batch, another method, any request the SDK would refuse, with whatever status
 * and error it refuses it with) is null.
 */
export function plainCall(req: IncomingMessage, body: unknown): PlainCall | null {
  if (
    body === null ||
    typeof body !== "object" ||
    Array.isArray(body) ||
    (body as { method?: unknown }).method !== "tools/call"
  )
    return null;
  if (!acceptsJsonAndStream(req.headers.accept) || !oneJsonContentType(req)) return null;
  const version = req.headers["mcp-protocol-version"];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version as string)) return null;
  const message = JSONRPCRequestSchema.safeParse(body);
  if (!message.success) return null;
  // The request as the SDK's server parses it for its handler.
  const call = CallToolRequestSchema.safeParse(message.data);
  if (!call.success) return null;
  const { params } = call.data;
  if (
    params.task !== undefined ||
    params._meta?.progressToken !== undefined ||
    params._meta?.[RELATED_TASK_META_KEY] !== undefined
  )
    return null;
  return { id: message.data.id, params };
}

/**
 * Answers a plain call as the SDK's server would in JSON mode: the run through
 * `callTool` (the chokepoint), its result validated and shaped by the SDK's
 * `CallToolResultSchema`, any failure as the same JSON-RPC error. `signal` is the
 * call's cancellation (`notifications/cancelled`). Nothing can be sent before the answer:
 * a notification is dropped (as a JSON answer drops it) and a request to the client is
 * refused at once (the door takes this path only when none can be asked). `status`: the HTTP status of an error
 * that has one of its own (a shed dispatch, http-status.ts).
 */
export async function answerPlainCall(
  rt: Runtime,
  ctx: McpCallContext,
  call: PlainCall,
  signal: AbortSignal,
): Promise<{ message: JSONRPCResultResponse | JSONRPCErrorResponse; status?: HttpStatus }> {
  const extra: CallExtra = {
    signal,
    requestId: call.id,
    _meta: call.params._meta,
    sendNotification: async () => {},
    sendRequest: () =>
      Promise.reject(new McpError(ErrorCode.ConnectionClosed, "a JSON answer cannot carry a request to the client")),
  };
  try {
    const result = await masked(rt, () => callTool(rt, ctx, call.params, extra));
    const valid = CallToolResultSchema.safeParse(result);
    if (!valid.success)
      throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call result: ${valid.error.message}`);
    return { message: { result: valid.data, jsonrpc: "2.0", id: call.id } };
  } catch (e) {
    const error = e as { code?: unknown; message?: string; data?: unknown };
    return {
      message: {
        jsonrpc: "2.0",
        id: call.id,
        error: {
          code: Number.isSafeInteger(error.code) ? (error.code as number) : ErrorCode.InternalError,
          message: error.message ?? "Internal error",
          ...(error.data !== undefined && { data: error.data }),
        },
      },
      status: statusOf(e),
    };
  }
}

/** The transport's Accept rule: both media types named (a substring check, as the SDK's). */
function acceptsJsonAndStream(accept: string | undefined): boolean {
  return accept !== undefined && accept.includes("application/json") && accept.includes("text/event-stream");
}

/**
 * The transport's Content-Type rule. Node keeps only the first of repeated Content-Type
 * headers, where the SDK's web request joins them (and refuses the result): a request
 * with more than one is left to the SDK.
 */
function oneJsonContentType(req: IncomingMessage): boolean {
  if (!isJsonContentType(req.headers["content-type"] ?? null)) return false;
  const raw = req.rawHeaders;
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 12 && raw[i].toLowerCase() === "content-type") seen++;
  return seen === 1;
}
