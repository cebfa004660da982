import { z } from "zod";
import type { Tier } from "../auth/roles.ts";
import { DefinitionError, type DefinitionErrorOptions } from "../definition-error.ts";
import type { ExecutionMode, ToolContext } from "../tools/definition.ts";
import type { JsonSchema } from "../tools/json-schema.ts";
import { fn, objectJsonSchema, wireSafeName } from "../validation/common.ts";
import { zodIssues } from "../validation/declaration.ts";
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
export interface ExtensionDefinition extends Required<
  Pick<ExtensionOptions, "name" | "kind" | "description" | "create">
> {
  configSchema: JsonSchema | null;
  /** The tools it registered, validated, each with `source` = its name. */
  tools: readonly ToolDefinition[];
  pauses: boolean;
  /** The module that registered it ("builtin" for built-ins). */
  module: string;
}

/**
 * A refused extension registration is a {@link DefinitionError} of rule
 * `extension.<rule>` whose message starts "app.extension: ".
 */
export function extensionDefinitionError(
  rule: string,
  message: string,
  options: DefinitionErrorOptions = {},
): DefinitionError {
  return new DefinitionError(`extension.${rule}`, `app.extension: ${message}`, options);
}

const KIND = `must be one of ${EXTENSION_KINDS.join(", ")}`;

/** The fields of an extension registration (docs/composing-the-surface.md). */
const ExtensionSchema = z
  .strictObject(
    {
      name: wireSafeName(),
      kind: z.enum(EXTENSION_KINDS, { error: KIND }),
      description: z.string({ error: "is required" }).refine((d) => d.trim() !== "", { error: "is required" }),
      create: fn("must be a function (tool, config?) => branch"),
      pauses: z.boolean({ error: "must be a boolean" }).optional(),
      configSchema: objectJsonSchema("/configSchema", "is not a valid draft 2020-12 schema").optional(),
      tools: z.unknown().optional(),
    },
    { error: (issue) => (issue.code === "unrecognized_keys" ? "is not an extension field" : "must be an object") },
  )
  .superRefine((o, ctx) => {
    // The declaration says whether the factory takes config, not `create.length`: a default
    // (`config = {}`), rest or wrapped parameter hides the arity. A second parameter that
    // is visible without a schema is still a mismatch (its config would always be empty).
    if (o.configSchema === undefined && o.create.length >= 2)
      ctx.addIssue({
        code: "custom",
        path: ["configSchema"],
        message: "must be declared: its factory takes config",
        params: { rule: "config-schema" },
      });
  });

/** The rule and sentence of the first issue of a refused registration. */
function refusal(issues: readonly z.core.$ZodIssue[], name: unknown): { rule: string; message: string } {
  const unknown = issues
    .filter((i) => i.code === "unrecognized_keys")
    .flatMap((i) => (i.code === "unrecognized_keys" ? i.keys : []));
  if (unknown.length) return { rule: "unknown-field", message: `unknown field(s) ${unknown.join(", ")}` };
  const first = issues[0];
  const field = String(first.path[0] ?? "");
  if (!field) return { rule: "options", message: "options must be an object" };
  if (field === "name") return { rule: "wire-safe-name", message: `name ${JSON.stringify(name)} ${first.message}` };
  const tagged = first.code === "custom" && (first.params as { rule?: string } | undefined)?.rule === "config-schema";
  if (tagged)
    return {
      rule: "config-schema",
      message: `"${String(name)}": its factory takes config, so it must declare a configSchema`,
    };
  return {
    rule: field === "configSchema" ? "config-schema" : field,
    message: `"${String(name)}": ${field} ${first.message}`,
  };
}

/** Validates a registration: name, kind, description, and the schema/factory agreement. */
export function defineExtension(options: ExtensionOptions, module: string): ExtensionDefinition {
  const parsed = ExtensionSchema.safeParse(options);
  if (!parsed.success) {
    const name = (options as { name?: unknown } | null)?.name;
    const { rule, message } = refusal(parsed.error.issues, name);
    throw extensionDefinitionError(rule, message, {
      subject: typeof name === "string" ? name : undefined,
      issues: zodIssues(parsed.error),
    });
  }
  const { name, kind, description, configSchema, pauses, create } = parsed.data;
  let tools: ToolDefinition[];
  try {
    tools = extensionTools(name, options.tools, module);
  } catch (e) {
    if (!(e instanceof DefinitionError)) throw e;
    throw extensionDefinitionError("tools", e.message, { subject: name, issues: e.issues, cause: e });
  }
  return {
    name,
    kind,
    description,
    configSchema: configSchema ?? null,
    pauses: pauses ?? false,
    create: create as ExtensionDefinition["create"],
    tools,
    module,
  };
}
