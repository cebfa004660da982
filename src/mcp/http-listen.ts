import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { holdCallerKey, type McpDoorContext, type McpExchange } from "./http-context.ts";
import { sendResponse, webRequest } from "./http-io.ts";
import { watchToolList } from "./list-changed.ts";
import { createMcpServer } from "./mcp-server.ts";

/** A GET: the stream of server notifications (`notifications/tools/list_changed`), with or without a session. */
export async function listen(ctx: McpDoorContext, exchange: McpExchange): Promise<void> {
  const { req, res, caller, cors } = exchange;
  const { rt, streams } = ctx;
  const transport = new WebStandardStreamableHTTPServerTransport();
  const server = createMcpServer(rt, { caller, elicit: null });
  await server.connect(transport);
  const end = () => void server.close().catch(() => {});
  const unwatch = watchToolList(rt.surface, caller, () => void server.sendToolListChanged().catch(() => {}));
  const releaseKey = holdCallerKey(ctx, caller, end);
  streams.add(end);
  res.once("close", () => {
    unwatch();
    releaseKey();
    streams.delete(end);
    end();
  });
  await sendResponse(res, await transport.handleRequest(webRequest(req)), cors);
}
