import type { ConnectorKind } from "../connector-kind.ts";
import { McpConnection } from "./mcp-connection.ts";
import { McpSettingsSchema, mcpOrigins, type McpSettings } from "./mcp-settings.ts";

/** The built-in `mcp` connector kind (docs/connectors.md §8): an MCP server over stdio or Streamable HTTP. */
export const mcpKind: ConnectorKind<McpSettings> = {
  name: "mcp",
  description:
    "An MCP server over stdio (`command`, `args`) or Streamable HTTP (`url`), through the MCP SDK's own client",
  settings: McpSettingsSchema,
  sealed: ["env/*", "headers/*"],
  origins: mcpOrigins,
  connect: (env) => McpConnection.open(env),
};
