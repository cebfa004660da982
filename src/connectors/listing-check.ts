import { schemaProblems } from "../tools/json-schema.ts";
import type { UpstreamListing } from "./connector-kind.ts";

/**
 * Keeps on a listing only the tools tai42 can validate: an input schema that is an object
 * schema and compiles, an output schema (when sent) that compiles. Any other tool is moved
 * to `refused` with the reason (docs/connectors.md §3), rather than stored and failing every
 * dispatch at validation.
 */
export function representable(found: UpstreamListing): UpstreamListing {
  const tools: UpstreamListing["tools"] = [];
  const refused = [...(found.refused ?? [])];
  for (const tool of found.tools ?? []) {
    const reason = unrepresentable(tool.inputSchema, tool.outputSchema);
    if (reason) refused.push({ name: tool.name, reason });
    else tools.push(tool);
  }
  return { tools, refused };
}

function unrepresentable(input: unknown, output: unknown): string | null {
  const inputProblems = schemaProblems(input);
  if (inputProblems.length) return `its input schema cannot be used: ${describe(inputProblems)}`;
  const root = (input as Record<string, unknown>).type;
  if (root !== undefined && root !== "object")
    return `its input schema's root is not an object schema (type ${JSON.stringify(root)})`;
  if (output !== undefined) {
    const outputProblems = schemaProblems(output);
    if (outputProblems.length) return `its output schema cannot be used: ${describe(outputProblems)}`;
  }
  return null;
}

const describe = (issues: Array<{ path: string; message: string }>) =>
  issues
    .slice(0, 3)
    .map((i) => `${i.path || "/"} ${i.message}`)
    .join("; ")
    .slice(0, 300);
