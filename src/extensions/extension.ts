import type { Tier } from "../auth/roles.ts";
import { describeIssues } from "../errors.ts";
import type { ExecutionMode, ToolContext } from "../tools/definition.ts";
import { schemaProblems, type JsonSchema } from "../tools/json-schema.ts";
import { extensionTools, type ExtensionToolInput } from "./extension-tools.ts";
import type { ToolDefinition } from "../tools/definition.ts";

export const EXTENSION_KINDS = ["WRAPPER", "TRANSFORMER", "BACKEND"] as const;
/** WRAPPER keeps the input schema; TRANSFORMER presents a new one; BACKEND routes execution. */
export type ExtensionKind = (typeof EXTENSION_KINDS)[number];

/**
 * The tool an extension factory receives (the base, or the branch so far when stacked)
 * and returns (the new layer).
 */
export interface BranchTool {
  /** The name of the tool being extended (the original tool, for every layer). */
  name: string;
  label?: string;
  description: string;
  tier: Tier;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  executionMode: ExecutionMode;
  timeoutSeconds: number;
  /** Where the original tool was registered (a module path, "demo", "inline", "preset"). */
  module: string;
  /** The line the tools agent lists for the branch; a layer may change it. */
  promptSnippet?: string;
  /** Rules the tools agent adds for the branch; a layer may change them. */
  promptGuidelines?: readonly string[];
  /** Runs the layer below. Contract: `input` must fit this layer's `inputSchema`. */
  run(input: Record<string, unknown>, ctx: ToolContext): Promise<unknown>;
  /** Continues a parked run of this layer (pausing extensions). */
  resume?(state: unknown, answers: Record<string, unknown>, ctx: ToolContext): Promise<unknown>;
}

/** Options of `app.extension(...)`. */
export interface ExtensionOptions {
  /** Wire-safe name; branches are named `<tool>_<name>`. */
  name: string;
  kind: ExtensionKind;
  description: string;
  /**
   * JSON Schema (draft 2020-12, root type "object") of the settings: the declaration that
   * `create` takes config. Without it the extension accepts no settings and `create` gets
   * `{}`; a factory with a visible second parameter and no schema is refused.
   */
  configSchema?: JsonSchema;
  /** Branches may return `park(...)`. @default false */
  pauses?: boolean;
  /**
   * Builds the branch layer. Contract: pure apart from building the layer — it is called
   * again for combos it already bound (every write binds once to check, then discards).
   * Throw to refuse the tool or the settings; the message reaches whoever wrote them.
   */
  create: (tool: BranchTool, config: Record<string, unknown>) => BranchTool;
  /**
   * Tools the extension registers itself (a `defineTool` result or its fields), registered
   * with the extension, each served with `source` = this extension's name. They are tools
   * like any other: tiers, curation (`apiTool: false`), manifests and retry apply.
   * @default []
   */
  tools?: readonly ExtensionToolInput[];
}

/** A registered extension. */
export interface ExtensionDefinition extends Required<Pick<ExtensionOptions, "name" | "kind" | "description" | "create">> {
  configSchema: JsonSchema | null;
  /** The tools it registered, validated, each with `source` = its name. */
  tools: readonly ToolDefinition[];
  pauses: boolean;
  /** The module that registered it ("builtin" for built-ins). */
  module: string;
}

/** A refused extension registration; the message names the rule. */
export class ExtensionDefinitionError extends Error {
  constructor(message: string) {
    super(`app.extension: ${message}`);
    this.name = "ExtensionDefinitionError";
  }
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Validates a registration: name, kind, description, and the schema/factory agreement. */
export function defineExtension(options: ExtensionOptions, module: string): ExtensionDefinition {
  if (typeof options !== "object" || options === null) throw new ExtensionDefinitionError("options must be an object");
  const { name, kind, description, configSchema, pauses, create } = options;
  const known = new Set(["name", "kind", "description", "configSchema", "pauses", "create", "tools"]);
  const unknown = Object.keys(options).filter((k) => !known.has(k));
  if (unknown.length) throw new ExtensionDefinitionError(`unknown field(s) ${unknown.join(", ")}`);
  if (typeof name !== "string" || !NAME.test(name)) throw new ExtensionDefinitionError(`name ${JSON.stringify(name)} must match ^[A-Za-z0-9_-]{1,64}$`);
  if (!EXTENSION_KINDS.includes(kind)) throw new ExtensionDefinitionError(`"${name}": kind must be one of ${EXTENSION_KINDS.join(", ")}`);
  if (typeof description !== "string" || !description.trim()) throw new ExtensionDefinitionError(`"${name}": description is required`);
  if (typeof create !== "function") throw new ExtensionDefinitionError(`"${name}": create must be a function (tool, config?) => branch`);
  if (pauses !== undefined && typeof pauses !== "boolean") throw new ExtensionDefinitionError(`"${name}": pauses must be a boolean`);
  // The declaration says whether the factory takes config, not `create.length`: a default
  // (`config = {}`), rest or wrapped parameter hides the arity. A second parameter that
  // is visible without a schema is still a mismatch (its config would always be empty).
  if (configSchema === undefined && create.length >= 2) throw new ExtensionDefinitionError(`"${name}": its factory takes config, so it must declare a configSchema`);
  if (configSchema !== undefined) {
    if (typeof configSchema !== "object" || configSchema === null || Array.isArray(configSchema) || configSchema.type !== "object")
      throw new ExtensionDefinitionError(`"${name}": configSchema must be a JSON Schema with root type "object"`);
    const problems = schemaProblems(configSchema, "/configSchema");
    if (problems.length) throw new ExtensionDefinitionError(`"${name}": configSchema is not a valid draft 2020-12 schema: ${describeIssues(problems)}`);
  }
  let tools: ToolDefinition[];
  try {
    tools = extensionTools(name, options.tools, module);
  } catch (e) {
    throw new ExtensionDefinitionError((e as Error).message);
  }
  return { name, kind, description, configSchema: configSchema ?? null, pauses: pauses ?? false, create: create as ExtensionDefinition["create"], tools, module };
}
