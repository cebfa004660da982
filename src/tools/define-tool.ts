import { TIERS, type Tier } from "../auth/roles.ts";
import { resolvePolicy, RetryPolicyError, type RetryPolicyInit } from "../retry/policy.ts";
import { schemaProblems, type JsonSchema } from "./json-schema.ts";
import type { ExecutionMode, ToolDefinition, ToolHandler } from "./definition.ts";
import { describeIssues } from "../errors.ts";

/** The fields `defineTool` accepts (keyword form or one mapping). */
export interface DefineToolFields {
  name: string;
  label?: string;
  /** The LLM-facing description. */
  description: string;
  /** JSON Schema draft 2020-12 with root `type: "object"`. */
  parameters: JsonSchema;
  execute: ToolHandler;
  /** @default "read" */
  tier?: Tier;
  /** @default "parallel" */
  executionMode?: ExecutionMode;
  retry?: RetryPolicyInit;
  /** @default 30 */
  timeoutSeconds?: number;
  outputSchema?: JsonSchema;
  /** false curates the tool off the API surface. @default true */
  apiTool?: boolean;
  /** One line for the tools agent's system message ("## Tools": `- name: snippet`). */
  promptSnippet?: string;
  /** Rules for the tools agent's system message ("## Tool guidelines"), each a non-empty line. */
  promptGuidelines?: readonly string[];
  /** Puts the tool in the pausing set: its body may return `park(...)`. @default false */
  pauses?: boolean;
  /** Continues a parked run once answered. Contract: called with the park's state and answers by interaction id. */
  resume?: (state: unknown, answers: Record<string, unknown>, ctx: import("./definition.ts").ToolContext) => unknown;
}

/** The rules `defineTool` enforces; every refusal names one. */
export type DefineToolRule =
  | "one-form"
  | "unknown-field"
  | "required-field"
  | "wire-safe-name"
  | "duplicate-name"
  | "object-schema"
  | "schema-compiles"
  | "execute-function"
  | "field-type"
  | "retry-policy";

/** A refused tool definition. `rule` names the broken rule. */
export class ToolDefinitionError extends Error {
  constructor(
    readonly rule: DefineToolRule,
    message: string,
  ) {
    super(`defineTool [${rule}]: ${message}`);
    this.name = "ToolDefinitionError";
  }
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const REQUIRED = ["name", "description", "parameters", "execute"] as const;
const KNOWN = new Set<string>([
  ...REQUIRED,
  "label",
  "tier",
  "executionMode",
  "retry",
  "timeoutSeconds",
  "outputSchema",
  "apiTool",
  "promptSnippet",
  "promptGuidelines",
  "pauses",
  "resume",
]);

/**
 * Builds a validated tool from a JSON Schema. Pass the fields either as keywords
 * (`defineTool(undefined, { ... })` or, more usually, `defineTool({ ... })`) or as one
 * mapping (a `Map` or plain object) — never both, never neither.
 */
export function defineTool(
  definition?: DefineToolFields | Map<string, unknown> | Record<string, unknown>,
  fields?: DefineToolFields,
  module = "inline",
): ToolDefinition {
  if (definition !== undefined && fields !== undefined)
    throw new ToolDefinitionError("one-form", "pass either one definition mapping or keyword fields, not both");
  if (definition === undefined && fields === undefined)
    throw new ToolDefinitionError("one-form", "pass a definition mapping or keyword fields; got neither");
  const source = definition ?? fields;
  if (typeof source !== "object" || source === null || Array.isArray(source))
    throw new ToolDefinitionError("one-form", "the definition must be a mapping of fields");
  const raw: Record<string, unknown> = source instanceof Map ? Object.fromEntries(source) : { ...(source as object) };

  const unknown = Object.keys(raw).filter((k) => !KNOWN.has(k));
  if (unknown.length) throw new ToolDefinitionError("unknown-field", `unknown field(s) ${unknown.map((k) => `"${k}"`).join(", ")}`);
  for (const key of REQUIRED) {
    const v = raw[key];
    const emptyObject = typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype && Object.keys(v).length === 0;
    if (v === undefined || v === null || (typeof v === "string" && v.trim() === "") || emptyObject)
      throw new ToolDefinitionError("required-field", `"${key}" is required and must not be empty`);
  }
  const name = raw.name;
  if (typeof name !== "string" || !NAME.test(name))
    throw new ToolDefinitionError("wire-safe-name", `name ${JSON.stringify(name)} must match ^[A-Za-z0-9_-]{1,64}$`);
  if (typeof raw.description !== "string") throw new ToolDefinitionError("field-type", `"${name}": description must be a string`);
  const parameters = raw.parameters as JsonSchema;
  if (typeof parameters !== "object" || Array.isArray(parameters) || parameters.type !== "object")
    throw new ToolDefinitionError("object-schema", `"${name}": parameters must be a JSON Schema with root type "object"`);
  const problems = schemaProblems(parameters, "/parameters");
  if (problems.length) throw new ToolDefinitionError("schema-compiles", `"${name}": parameters is not a valid JSON Schema: ${describeIssues(problems)}`);
  if (typeof raw.execute !== "function") throw new ToolDefinitionError("execute-function", `"${name}": execute must be a function`);

  const tier = (raw.tier ?? "read") as Tier;
  if (!TIERS.includes(tier)) throw new ToolDefinitionError("field-type", `"${name}": tier must be one of ${TIERS.join(", ")}`);
  const executionMode = (raw.executionMode ?? "parallel") as ExecutionMode;
  if (executionMode !== "parallel" && executionMode !== "sequential")
    throw new ToolDefinitionError("field-type", `"${name}": executionMode must be "parallel" or "sequential"`);
  const timeoutSeconds = (raw.timeoutSeconds ?? 30) as number;
  if (typeof timeoutSeconds !== "number" || !(timeoutSeconds > 0))
    throw new ToolDefinitionError("field-type", `"${name}": timeoutSeconds must be a number > 0`);
  const outputSchema = raw.outputSchema as JsonSchema | undefined;
  if (outputSchema !== undefined) {
    const out = schemaProblems(outputSchema, "/outputSchema");
    if (out.length) throw new ToolDefinitionError("schema-compiles", `"${name}": outputSchema is not a valid JSON Schema: ${describeIssues(out)}`);
  }
  if (raw.label !== undefined && typeof raw.label !== "string") throw new ToolDefinitionError("field-type", `"${name}": label must be a string`);
  if (raw.pauses !== undefined && typeof raw.pauses !== "boolean") throw new ToolDefinitionError("field-type", `"${name}": pauses must be a boolean`);
  if (raw.resume !== undefined && typeof raw.resume !== "function") throw new ToolDefinitionError("field-type", `"${name}": resume must be a function`);
  if (raw.resume !== undefined && raw.pauses !== true) throw new ToolDefinitionError("field-type", `"${name}": resume is only meaningful with pauses: true`);
  if (raw.promptSnippet !== undefined && (typeof raw.promptSnippet !== "string" || !raw.promptSnippet.trim() || raw.promptSnippet.includes("\n")))
    throw new ToolDefinitionError("field-type", `"${name}": promptSnippet must be one non-empty line of text`);
  const guidelines = raw.promptGuidelines;
  if (guidelines !== undefined && (!Array.isArray(guidelines) || guidelines.some((g) => typeof g !== "string" || !g.trim())))
    throw new ToolDefinitionError("field-type", `"${name}": promptGuidelines must be a list of non-empty strings`);
  if (raw.apiTool !== undefined && typeof raw.apiTool !== "boolean") throw new ToolDefinitionError("field-type", `"${name}": apiTool must be a boolean`);
  let retry;
  if (raw.retry !== undefined) {
    try {
      retry = resolvePolicy(name, raw.retry as RetryPolicyInit);
    } catch (e) {
      if (e instanceof RetryPolicyError) throw new ToolDefinitionError("retry-policy", e.message);
      throw e;
    }
  }
  return Object.freeze({
    name,
    label: raw.label as string | undefined,
    description: raw.description,
    parameters,
    outputSchema,
    execute: raw.execute as ToolHandler,
    executionMode,
    tier,
    retry,
    timeoutSeconds,
    apiTool: (raw.apiTool ?? true) as boolean,
    promptSnippet: (raw.promptSnippet as string | undefined)?.trim(),
    promptGuidelines: guidelines === undefined ? undefined : Object.freeze((guidelines as string[]).map((g) => g.trim())),
    pauses: (raw.pauses ?? false) as boolean,
    resume: raw.resume as ToolDefinition["resume"],
    module,
  });
}
