import { DefinitionError, isDefinitionError } from "../definition-error.ts";
import { defineTool, type DefineToolFields } from "../tools/define-tool.ts";
import type { ToolDefinition } from "../tools/definition.ts";

/** A tool an extension brings: what `defineTool` returned, or the fields `defineTool` takes. */
export type ExtensionToolInput = ToolDefinition | DefineToolFields;

/**
 * The tools an extension registers (the seed's `ExtensionAPI.register_tool`): each is
 * validated at the boundary by `defineTool` (a plain mapping) or taken as `defineTool`
 * built it, then marked with `source` = the extension's name. A missing label defaults
 * to the tool's name. Throws naming the extension and the rule.
 */
export function extensionTools(extension: string, items: unknown, module: string): ToolDefinition[] {
  if (items === undefined) return [];
  if (!Array.isArray(items))
    throw new DefinitionError("extension.tools", `"${extension}": tools must be a list of tool definitions`, {
      subject: extension,
      issues: [{ path: "/tools", message: "must be a list of tool definitions" }],
    });
  const seen = new Set<string>();
  return items.map((item, i) => {
    let def: ToolDefinition;
    try {
      def = isBuilt(item) ? item : defineTool(item as DefineToolFields, undefined, module);
    } catch (e) {
      if (isDefinitionError(e, "tool."))
        throw new DefinitionError(e.rule, `"${extension}": tools[${i}]: ${e.message}`, {
          subject: extension,
          issues: e.issues.map((x) => ({ ...x, path: `/tools/${i}${x.path}` })),
        });
      throw e;
    }
    if (seen.has(def.name)) {
      const message = `the tool name "${def.name}" is given twice`;
      throw new DefinitionError("tool.duplicate-name", `"${extension}": tools[${i}]: ${message}`, {
        subject: extension,
        issues: [{ path: `/tools/${i}/name`, message }],
      });
    }
    seen.add(def.name);
    return Object.freeze({ ...def, label: def.label ?? def.name, source: extension, module });
  });
}

/** What `defineTool` returned: frozen, with an execute function. */
function isBuilt(item: unknown): item is ToolDefinition {
  return (
    typeof item === "object" &&
    item !== null &&
    Object.isFrozen(item) &&
    typeof (item as ToolDefinition).execute === "function"
  );
}
