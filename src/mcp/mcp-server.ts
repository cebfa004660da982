import { createRequire } from "node:module";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { Runtime } from "../runtime.ts";
import { scrubExcept } from "../secrets/value-fields.ts";
import { callTool, type McpCallContext } from "./tool-call.ts";
import { toolsFor } from "./tool-listing.ts";

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

/**
 * The SDK server builds an ajv instance of its own unless given one; the door builds a
 * server per HTTP request, so they share this one (it validates only what this door
 * never asks of it: sampling tools and SDK-side elicitation).
 */
let validator: AjvJsonSchemaValidator | undefined;

/** A listed tool's name and title are structure; its description and schemas are scrubbed. */
const TOOL_STRUCTURE: ReadonlySet<string> = new Set(["name", "title"]);

/**
 * The SDK's low-level MCP server with tai42's two tool methods, for one caller: `tools/list`
 * (the surface the caller may run) and `tools/call` (through the chokepoint). Tools are
 * described by JSON Schema, which the SDK's zod-based `McpServer` registration does not
 * take, hence the low-level `Server`. Every answer leaves scrubbed of the runtime's
 * secrets; an unexpected failure is logged and answered as a masked internal error.
 */
export function createMcpServer(rt: Runtime, ctx: McpCallContext): Server {
  const server = new Server(
    { name: "tai42", title: "tai42", version },
    { capabilities: { tools: { listChanged: true } }, jsonSchemaValidator: (validator ??= new AjvJsonSchemaValidator()) },
  );
  server.setRequestHandler(ListToolsRequestSchema, () =>
    masked(rt, async () => ({ tools: toolsFor(rt.surface, ctx.caller).map((t) => scrubExcept(rt.secrets, t, TOOL_STRUCTURE)) })),
  );
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => masked(rt, () => callTool(rt, ctx, request.params, extra)));
  return server;
}

/** Runs a request's answer; an unexpected failure is logged and becomes a masked internal error. */
export async function masked<T>(rt: Runtime, answer: () => Promise<T>): Promise<T> {
  try {
    return await answer();
  } catch (e) {
    if (e instanceof McpError) throw e;
    rt.log.error("an MCP request failed", { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
    throw new McpError(ErrorCode.InternalError, "internal error");
  }
}
