import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import { ToolError } from "../../errors.ts";
import { toolResult, type ContentBlock } from "../../tools/result.ts";
import type { UpstreamTool } from "../connector-kind.ts";
import { bounded } from "./mcp-errors.ts";

const validators = new AjvJsonSchemaValidator();
const compiled = new Map<string, JsonSchemaValidator<unknown>>();

/** The SDK's own validator for an output schema, compiled once per schema text. */
function validatorOf(schema: object): JsonSchemaValidator<unknown> {
  const key = JSON.stringify(schema);
  let v = compiled.get(key);
  if (!v) {
    if (compiled.size > 500) compiled.clear();
    compiled.set(key, (v = validators.getValidator(schema as never)));
  }
  return v;
}

/**
 * An MCP content block as a tai42 block (docs/connectors.md §8): text, image and audio as
 * such (what tai42's own MCP door sends back unchanged, `src/mcp/call-result.ts`); any other
 * block (a resource link, an embedded resource) keeps its type and carries the block as `data`.
 */
function blockOf(b: CallToolResult["content"][number]): ContentBlock {
  if (b.type === "text") return { type: "text", text: b.text };
  if (b.type === "image" || b.type === "audio") return { type: b.type, data: b.data, mimeType: b.mimeType };
  return { type: b.type, data: b };
}

/** The text an upstream's failed result says, joined and bounded. */
function errorText(result: CallToolResult): string {
  const text = result.content
    .filter((b) => b.type === "text")
    .map((b) => (b as { text: string }).text)
    .join("\n")
    .trim();
  return bounded(text || "the MCP tool reported an error without a message");
}

/**
 * Maps a `tools/call` result to what a tool body returns: content blocks, `data` = the
 * `structuredContent`, `details._meta` = the result's `_meta`. `isError: true` is a FAILED
 * run of kind UPSTREAM whose message is the joined text (its content kept). A tool with an
 * output schema must send `structuredContent` that matches it, else the run fails UPSTREAM
 * naming the problem (checked against the stored listing's schema, the one tai42 serves).
 */
export function mapResult(tool: UpstreamTool, result: CallToolResult): unknown {
  const content = (result.content ?? []).map(blockOf);
  const data = result.structuredContent;
  const details = result._meta === undefined ? undefined : { _meta: result._meta };
  if (result.isError === true) {
    return toolResult({
      content,
      ...(data === undefined ? {} : { data }),
      ...(details ? { details } : {}),
      isError: true,
      errorMessage: errorText(result),
      errorKind: "UPSTREAM",
    });
  }
  if (tool.outputSchema) {
    if (data === undefined)
      throw new ToolError(`the MCP tool "${tool.name}" has an output schema but returned no structuredContent`, {
        kind: "UPSTREAM",
        retryable: false,
      });
    const check = validatorOf(tool.outputSchema)(data);
    if (!check.valid)
      throw new ToolError(
        `the MCP tool "${tool.name}" returned structuredContent that does not match its output schema: ${bounded(check.errorMessage ?? "invalid")}`,
        {
          kind: "UPSTREAM",
          retryable: false,
        },
      );
  }
  return toolResult({ content, ...(data === undefined ? {} : { data }), ...(details ? { details } : {}) });
}
