import type { ConnectorKind } from "./connector-kind.ts";
import { mcpKind } from "./mcp/mcp-kind.ts";

/** The connector kinds every runtime has (docs/connectors.md §1). */
export function builtinKinds(): ConnectorKind[] {
  return [mcpKind as ConnectorKind];
}
