import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Logger } from "../../log.ts";
import type { ConnectorEnv } from "../connector-kind.ts";
import type { McpSettings } from "./mcp-settings.ts";

/** Bounds on what a stdio upstream's stderr may put in the log. */
export const STDERR_BOUNDS = Object.freeze({ lineChars: 1000, lines: 200 });

/**
 * The transport for a connector's settings (docs/connectors.md §8). A stdio server gets a
 * **curated environment**: the MCP SDK's non-secret defaults (`getDefaultEnvironment()`:
 * PATH, HOME, …, which the SDK merges in) and the variables the connector names, never
 * tai42's own environment (its database URL, keys). Its stderr is piped into the log,
 * line by line and bounded, never inherited. A Streamable HTTP server is reached through
 * the connector's guarded `fetch`, with its headers on every request.
 */
export function transportFor(env: ConnectorEnv<McpSettings>): Transport {
  const s = env.settings;
  if (s.url !== undefined) {
    return new StreamableHTTPClientTransport(new URL(s.url), {
      fetch: env.fetch,
      requestInit: { headers: { ...s.headers } },
    });
  }
  const transport = new StdioClientTransport({
    command: s.command!,
    args: s.args ?? [],
    env: { ...s.env },
    ...(s.cwd === undefined ? {} : { cwd: s.cwd }),
    stderr: "pipe",
  });
  logStderr(transport, env.log.child({ connector: env.name, stream: "stderr" }));
  return transport;
}

function logStderr(transport: StdioClientTransport, log: Logger): void {
  let lines = 0;
  let rest = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    if (lines > STDERR_BOUNDS.lines) return;
    rest += chunk.toString("utf8");
    if (rest.length > STDERR_BOUNDS.lineChars * 4) rest = rest.slice(0, STDERR_BOUNDS.lineChars * 4);
    const parts = rest.split("\n");
    rest = parts.pop() ?? "";
    for (const line of parts) {
      if (!line.trim()) continue;
      if (++lines > STDERR_BOUNDS.lines) {
        log.info(`the MCP server's stderr passed ${STDERR_BOUNDS.lines} lines; further lines are dropped`);
        return;
      }
      log.info(line.length > STDERR_BOUNDS.lineChars ? `${line.slice(0, STDERR_BOUNDS.lineChars - 1)}…` : line);
    }
  });
}
