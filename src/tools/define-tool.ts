import type { Tier } from "../auth/roles.ts";
import { DefinitionError, isDefinitionError, type DefinitionErrorOptions } from "../definition-error.ts";
import { resolveLimits, type LimitsInit } from "../limits/limits.ts";
import { resolvePolicy, type RetryPolicyInit } from "../retry/policy.ts";
import type { JsonSchema } from "./json-schema.ts";
import type { ExecutionMode, ToolDefinition, ToolHandler } from "./definition.ts";
import { TOOL_RULES, ToolFieldsSchema, toolRefusal } from "./tool-declaration.ts";

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
  /** Concurrency, rate and circuit breaker (docs/flow-control.md §2). */
  limits?: LimitsInit;
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

/** The rules `defineTool` enforces; every refusal names one (as `tool.<rule>`). */
export type DefineToolRule = (typeof TOOL_RULES)[number];

/** A refused tool definition: a {@link DefinitionError} of rule `tool.<rule>`, message `defineTool [<rule>]: …`. */
export function toolDefinitionError(
  rule: DefineToolRule,
  message: string,
  options: DefinitionErrorOptions = {},
): DefinitionError {
  return new DefinitionError(`tool.${rule}`, `defineTool [${rule}]: ${message}`, options);
}

/**
 * Builds a validated tool from a JSON Schema. Pass the fields either as keywords
 * (`defineTool(undefined, { ... })` or, more usually, `defineTool({ ... })`) or as one
 * mapping (a `Map` or plain object) — never both, never neither. The fields are checked
 * by the zod schema of `tool-declaration.ts`; a refusal names the first broken rule.
 */
export function defineTool(
  definition?: DefineToolFields | Map<string, unknown> | Record<string, unknown>,
  fields?: DefineToolFields,
  module = "inline",
): ToolDefinition {
  if (definition !== undefined && fields !== undefined)
    throw toolDefinitionError("one-form", "pass either one definition mapping or keyword fields, not both");
  if (definition === undefined && fields === undefined)
    throw toolDefinitionError("one-form", "pass a definition mapping or keyword fields; got neither");
  const source = definition ?? fields;
  if (typeof source !== "object" || source === null || Array.isArray(source))
    throw toolDefinitionError("one-form", "the definition must be a mapping of fields");
  const raw: Record<string, unknown> = source instanceof Map ? Object.fromEntries(source) : { ...(source as object) };

  const parsed = ToolFieldsSchema.safeParse(raw);
  if (!parsed.success) {
    const { rule, message, issues } = toolRefusal(parsed.error, raw);
    throw toolDefinitionError(rule, message, { subject: typeof raw.name === "string" ? raw.name : undefined, issues });
  }
  const t = parsed.data;
  let retry;
  if (t.retry !== undefined) {
    try {
      retry = resolvePolicy(t.name, t.retry as RetryPolicyInit);
    } catch (e) {
      if (isDefinitionError(e, "retry.policy"))
        throw toolDefinitionError("retry-policy", e.message, {
          subject: t.name,
          issues: e.issues.map((i) => ({ ...i, path: `/retry${i.path}` })),
        });
      throw e;
    }
  }
  const limits = t.limits === undefined ? undefined : declaredLimits(t.name, t.limits as LimitsInit);
  return Object.freeze({
    name: t.name,
    label: t.label,
    description: t.description,
    parameters: t.parameters,
    outputSchema: t.outputSchema,
    execute: t.execute as ToolHandler,
    executionMode: t.executionMode,
    tier: t.tier,
    retry,
    limits,
    timeoutSeconds: t.timeoutSeconds,
    apiTool: t.apiTool,
    promptSnippet: t.promptSnippet,
    promptGuidelines: t.promptGuidelines === undefined ? undefined : Object.freeze(t.promptGuidelines),
    pauses: t.pauses,
    resume: t.resume as ToolDefinition["resume"],
    module,
  });
}

/** A tool's limits, or its refusal as rule `tool.limits` with the issues under `/limits`. */
function declaredLimits(name: string, init: LimitsInit) {
  try {
    return resolveLimits(name, init);
  } catch (e) {
    if (isDefinitionError(e, "limits"))
      throw toolDefinitionError("limits", e.message, {
        subject: name,
        issues: e.issues.map((i) => ({ ...i, path: `/limits${i.path}` })),
      });
    throw e;
  }
}
