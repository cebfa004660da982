import { createRequire } from "node:module";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type InitializeRequest,
  type ServerResult,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { contentionError } from "../db/contention.ts";
import { ApiError } from "../errors.ts";
import { failureLogOf } from "../failure-log.ts";
import type { Runtime } from "../runtime.ts";
import { scrubExcept } from "../secrets/value-fields.ts";
import { callTool, type CallExtra, type McpCallContext } from "./tool-call.ts";
import { toolsFor } from "./tool-listing.ts";

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

/**
 * The SDK server builds an ajv instance of its own unless given one; the door builds a
 * server per HTTP request, so they share this one (it validates only what this door
 * never asks of it: sampling tools and SDK-side elicitation).
 */
let validator: AjvJsonSchemaValidator | undefined;

/**
 * A listed tool's name, title and schemas are structure (a client validates against them); its description is scrubbed.
 */
const TOOL_STRUCTURE: ReadonlySet<string> = new Set(["name", "title", "inputSchema", "outputSchema", "annotations"]);

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
    {
      capabilities: { tools: { listChanged: true } },
      jsonSchemaValidator: (validator ??= new AjvJsonSchemaValidator()),
    },
  );
  // The SDK's own initialize, behind the same readable validation (`_oninitialize` is what its handler calls).
  const initialize = (
    server as unknown as { _oninitialize(request: InitializeRequest): Promise<ServerResult> }
  )._oninitialize.bind(server);
  handle(server, InitializeRequestSchema, (request) => initialize(request));
  handle(server, ListToolsRequestSchema, () =>
    masked(rt, async () => ({
      tools: toolsFor(rt.surface, ctx.caller).map((t) => scrubExcept(rt.secrets, t, TOOL_STRUCTURE)),
    })),
  );
  handle(server, CallToolRequestSchema, (request, extra) => masked(rt, () => callTool(rt, ctx, request.params, extra)));
  return server;
}

/**
 * Registers `handler` for the method of `schema`, whose params it validates itself: an
 * invalid request is JSON-RPC -32602 (InvalidParams) naming each wrong field and what was
 * wrong with it. The SDK's own registration parses with the schema first and answers a
 * failure as -32603 with the validator's raw dump (and `Server`'s `tools/call` wrapper as
 * a raw dump too), so the handler is set on the protocol with a schema that only names
 * the method. A `tools/call` result is checked and shaped as the SDK's would be (this server offers no tasks).
 */
function handle<
  S extends typeof InitializeRequestSchema | typeof ListToolsRequestSchema | typeof CallToolRequestSchema,
>(server: Server, schema: S, handler: (request: z.infer<S>, extra: CallExtra) => Promise<ServerResult>): void {
  const method = schema.shape.method.value;
  Protocol.prototype.setRequestHandler.call(
    server,
    z.looseObject({ method: z.literal(method) }) as never,
    async (request: unknown, extra: CallExtra) => {
      const parsed = schema.safeParse(request);
      if (!parsed.success)
        throw new McpError(
          ErrorCode.InvalidParams,
          `invalid ${method} request: ${readableIssues(parsed.error.issues)}`,
        );
      const result = await handler(parsed.data as z.infer<S>, extra);
      if (method !== "tools/call") return result;
      // As the SDK's `Server` answers a tools/call: the result as its schema parses it.
      const valid = CallToolResultSchema.safeParse(result);
      if (!valid.success)
        throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call result: ${valid.error.message}`);
      return valid.data;
    },
  );
}

/** Each issue as `<path>: <what was wrong>` (at most 5), e.g. `params.name: expected string, received number`. */
function readableIssues(issues: z.core.$ZodIssue[]): string {
  const shown = issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join(".") : "the request"}: ${i.message.replace(/^Invalid input: /, "")}`);
  return shown.join("; ") + (issues.length > 5 ? ` (and ${issues.length - 5} more)` : "");
}

/**
 * Runs a request's answer. A refusal the API types ({@link ApiError}, or contention and a
 * database refusing writes, `db/contention.ts`) is a JSON-RPC error naming its code, with
 * `data.code`, `data.retryable` and `data.retryAfterSeconds` (bad input is -32602); an
 * unexpected failure is logged (rate-limited) and becomes a masked internal error.
 */
export async function masked<T>(rt: Runtime, answer: () => Promise<T>): Promise<T> {
  try {
    return await answer();
  } catch (e) {
    if (e instanceof McpError) throw e;
    const log = failureLogOf(rt, rt.log);
    const typed = e instanceof ApiError ? e : contentionError(e);
    if (typed) {
      if (typed !== e)
        log.failed(
          "warn",
          "an MCP request met contention or a database refusing writes",
          { code: typed.code },
          typed.code,
        );
      const data = {
        code: typed.code,
        ...(typed.retryable ? { retryable: true } : {}),
        ...(typed.retryAfterSeconds !== undefined ? { retryAfterSeconds: typed.retryAfterSeconds } : {}),
      };
      const code =
        typed.code === "BAD_USER_INPUT" || typed.code === "INVALID_INPUT"
          ? ErrorCode.InvalidParams
          : ErrorCode.InternalError;
      throw new McpError(code, rt.secrets.scrubText(`${typed.code}: ${typed.message}`), data);
    }
    const text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    log.failed("error", "an MCP request failed", { error: text }, text.slice(0, 200));
    throw new McpError(ErrorCode.InternalError, "internal error");
  }
}
