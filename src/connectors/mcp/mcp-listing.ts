import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchema } from "../../tools/json-schema.ts";
import type { RefusedTool, UpstreamListing, UpstreamTool } from "../connector-kind.ts";

/** At most this many pages of `tools/list` are read (an upstream that pages forever is cut). */
export const MAX_PAGES = 100;

/**
 * Reads the upstream's tools, following `nextCursor` (docs/connectors.md §8): name, title,
 * description, input and output schemas and annotations as sent; the proposed tier from
 * `readOnlyHint`; `pauses` when elicitation is advertised (any MCP tool may ask). A tool
 * that requires task-based execution cannot be called through a plain `tools/call` and is
 * refused with the reason.
 */
export async function listTools(
  client: Client,
  options: { timeout: number; pauses: boolean },
): Promise<UpstreamListing> {
  const tools: UpstreamTool[] = [];
  const refused: RefusedTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: options.timeout });
    for (const t of res.tools) {
      if (t.execution?.taskSupport === "required")
        refused.push({
          name: t.name,
          reason: "the tool requires MCP task-based execution, which connectors do not call",
        });
      else tools.push(upstreamTool(t, options.pauses));
    }
    cursor = res.nextCursor;
    if (!cursor) break;
  }
  return { tools, refused };
}

function upstreamTool(t: Tool, pauses: boolean): UpstreamTool {
  const title = t.title;
  return {
    name: t.name,
    ...(title === undefined ? {} : { title }),
    description: t.description ?? "",
    inputSchema: t.inputSchema as JsonSchema,
    ...(t.outputSchema === undefined ? {} : { outputSchema: t.outputSchema as JsonSchema }),
    ...(t.annotations === undefined ? {} : { annotations: t.annotations as Record<string, unknown> }),
    proposedTier: t.annotations?.readOnlyHint === true ? "read" : "write",
    pauses,
  };
}
