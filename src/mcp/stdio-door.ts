import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Readable, Writable } from "node:stream";
import type { Caller } from "../auth/roles.ts";
import type { Runtime } from "../runtime.ts";
import { watchToolList } from "./list-changed.ts";
import { createMcpServer } from "./mcp-server.ts";
import { formElicitation } from "./sessions.ts";
import type { Elicit, McpCallContext } from "./tool-call.ts";

/** The SDK's own request timeout for an elicitation; the call's own wait (tool-call.ts) is shorter and governs. */
const ELICIT_REQUEST_TIMEOUT_MS = 24 * 3600_000;

/** Streams of {@link serveStdio}. @default process.stdin and process.stdout */
export interface StdioStreams {
  stdin: Readable;
  stdout: Writable;
}

/**
 * MCP over stdio for one client (`tai mcp`, docs/mcp.md): one SDK server for the process,
 * as `caller`. Only protocol messages are written to `stdout`. The tool list is watched
 * for the process's whole life (`notifications/tools/list_changed`), and elicitation is
 * used when the client declared it at `initialize`. Resolves when the client closes the
 * connection (stdin ends) or `stop` is called.
 */
export async function serveStdio(
  rt: Runtime,
  caller: Caller,
  streams: StdioStreams = { stdin: process.stdin, stdout: process.stdout },
): Promise<{ stop(): Promise<void>; closed: Promise<void> }> {
  const elicit: Elicit = (extra, params, signal) =>
    extra.sendRequest({ method: "elicitation/create", params }, ElicitResultSchema, {
      signal,
      timeout: ELICIT_REQUEST_TIMEOUT_MS,
    });
  const ctx: McpCallContext = { caller, elicit: null };
  const server = createMcpServer(rt, ctx);
  server.oninitialized = () => {
    ctx.elicit = formElicitation(server.getClientCapabilities()?.elicitation) ? elicit : null;
  };
  const closed = new Promise<void>((resolve) => (server.onclose = resolve));
  const stop = () => server.close();
  streams.stdin.once("end", () => void stop());
  await server.connect(new StdioServerTransport(streams.stdin, streams.stdout));
  const unwatch = watchToolList(rt.surface, caller, () => void server.sendToolListChanged().catch(() => {}));
  void closed.then(unwatch);
  return { stop, closed };
}
