import { createRequire } from "node:module";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  CreateTaskResultSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type InitializeRequest,
  type ServerResult,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { Runtime } from "../runtime.ts";
import { scrubExcept } from "../secrets/value-fields.ts";
import { masked } from "./masked.ts";
import { RunTaskStore, TASK_POLL_MS } from "./task-store.ts";
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
const TOOL_STRUCTURE: ReadonlySet<string> = new Set([
  "name",
  "title",
  "inputSchema",
  "outputSchema",
  "annotations",
  "execution",
]);

/**
 * MCP tasks (docs/mcp.md §5): `tools/call` may be task-augmented; `tasks/get`, `tasks/result`, `tasks/list` and
 * `tasks/cancel` are the SDK's handlers over {@link RunTaskStore}.
 */
const TASKS = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

/**
 * The SDK's low-level MCP server with tai42's two tool methods, for one caller: `tools/list`
 * (the surface the caller may run) and `tools/call` (through the chokepoint; with a `task`, a background run
 * answered as its task, whose `tasks/*` methods the SDK answers from the caller's {@link RunTaskStore}). Tools are
 * described by JSON Schema, which the SDK's zod-based `McpServer` registration does not
 * take, hence the low-level `Server`. Every answer leaves scrubbed of the runtime's
 * secrets; an unexpected failure is logged and answered as a masked internal error.
 */
export function createMcpServer(rt: Runtime, ctx: McpCallContext): Server {
  const tasks = new RunTaskStore(rt, ctx.caller);
  const server = new Server(
    { name: "tai42", title: "tai42", version },
    {
      capabilities: { tools: { listChanged: true }, tasks: TASKS },
      jsonSchemaValidator: (validator ??= new AjvJsonSchemaValidator()),
      taskStore: tasks,
      defaultTaskPollInterval: TASK_POLL_MS,
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
  handle(server, CallToolRequestSchema, (request, extra) =>
    request.params.task
      ? tasks.createTask(request.params.task, extra.requestId, request).then((task) => ({ task }))
      : masked(rt, () => callTool(rt, ctx, request.params, extra)),
  );
  return server;
}

/**
 * Registers `handler` for the method of `schema`, whose params it validates itself: an
 * invalid request is JSON-RPC -32602 (InvalidParams) naming each wrong field and what was
 * wrong with it. The SDK's own registration parses with the schema first and answers a
 * failure as -32603 with the validator's raw dump (and `Server`'s `tools/call` wrapper as
 * a raw dump too), so the handler is set on the protocol with a schema that only names
 * the method. A `tools/call` result is checked and shaped as the SDK's would be (a task's as a `CreateTaskResult`).
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
      const task = (parsed.data as z.infer<typeof CallToolRequestSchema>).params.task !== undefined;
      const valid = (task ? CreateTaskResultSchema : CallToolResultSchema).safeParse(result);
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
