import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { childArgs, runChild } from "../lib/child-harness.ts";
import { closeServer } from "../lib/listen.ts";

/**
 * Baseline (c), the peer: the MCP TypeScript SDK's Streamable HTTP server with the same
 * echo tool, set up as the SDK's examples and server guide show it:
 * - `stateless` (simpleStatelessStreamableHttp): a new McpServer and transport per POST,
 *   `sessionIdGenerator: undefined`, closed when the response closes;
 * - `session` (simpleStreamableHttp, without the optional resumability event store): one
 *   transport per session, created on `initialize`, found by the `mcp-session-id` header.
 * Both use `createMcpExpressApp()` (express.json + DNS-rebinding protection) and answer
 * tools/call as an SSE response, the transport's default.
 */
/** The parts of express's request and response used here (express ships without types). */
type Request = IncomingMessage & { body?: unknown };
type Response = ServerResponse & { status(code: number): Response; json(body: unknown): void };

function echoServer(): McpServer {
  const server = new McpServer({ name: "bench-echo", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Return the given text unchanged.", inputSchema: { text: z.string().max(100_000) } },
    async ({ text }) => ({
      content: [{ type: "text", text }],
    }),
  );
  return server;
}

function internalError(res: Response): void {
  if (!res.headersSent)
    res.status(500).json({ jsonrpc: "2.0", error: { code: -32603, message: "Internal server error" }, id: null });
}

runChild(async () => {
  const { mode } = childArgs<{ mode: "stateless" | "session" }>();
  const app = createMcpExpressApp();
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  if (mode === "stateless") {
    app.post("/mcp", async (req: Request, res: Response) => {
      const server = echoServer();
      try {
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        await server.connect(transport);
        await transport.handleRequest(req, res, req.body);
        res.on("close", () => {
          void transport.close();
          void server.close();
        });
      } catch {
        internalError(res);
      }
    });
  } else {
    app.post("/mcp", async (req: Request, res: Response) => {
      try {
        const sessionId = req.headers["mcp-session-id"] as string | undefined;
        const existing = sessionId ? sessions.get(sessionId) : undefined;
        if (existing) return void (await existing.handleRequest(req, res, req.body));
        if (sessionId)
          return void res
            .status(404)
            .json({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });
        if (!isInitializeRequest(req.body))
          return void res.status(400).json({
            jsonrpc: "2.0",
            error: { code: -32000, message: "Bad Request: No valid session ID provided" },
            id: null,
          });
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, transport),
        });
        transport.onclose = () => {
          if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        await echoServer().connect(transport);
        await transport.handleRequest(req, res, req.body);
      } catch {
        internalError(res);
      }
    });
  }

  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(0, "127.0.0.1", (e?: Error) => (e ? reject(e) : resolve(s)));
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    commands: { sessions: () => sessions.size },
    async stop() {
      for (const t of sessions.values()) await t.close().catch(() => {});
      await closeServer(server);
    },
  };
});
