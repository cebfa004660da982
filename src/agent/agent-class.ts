import { z } from "zod";
import { TIERS } from "../auth/roles.ts";
import type { AgentClass } from "./agent.ts";
import { RUN_OPTION_KEYS } from "./run-options.ts";

/** A class `app.agent(...)` refused; the message names the class and the rule. */
export class AgentDefinitionError extends Error {
  constructor(
    readonly rule: string,
    message: string,
  ) {
    super(message);
    this.name = "AgentDefinitionError";
  }
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Checks an agent class before it is registered: a wire-safe `toolName`, a non-empty
 * `toolDescription`, a zod object `ToolInput` that converts to JSON Schema, a `run`
 * method, and `presetBakeableFields` naming real ToolInput fields.
 */
export function checkAgentClass(cls: unknown): AgentClass {
  if (typeof cls !== "function") throw new AgentDefinitionError("class", "app.agent takes an agent class (extends Agent)");
  const c = cls as Partial<AgentClass> & { name: string; prototype?: { run?: unknown } };
  const label = `agent class ${c.name || "(anonymous)"}`;
  if (typeof c.toolName !== "string" || !NAME.test(c.toolName)) throw new AgentDefinitionError("wire-safe-name", `${label}: static toolName must match ^[A-Za-z0-9_-]{1,64}$`);
  if (typeof c.toolDescription !== "string" || !c.toolDescription.trim()) throw new AgentDefinitionError("description", `${label}: static toolDescription must not be empty`);
  if (!(c.ToolInput instanceof z.ZodObject)) throw new AgentDefinitionError("tool-input", `${label}: static ToolInput must be a zod object (z.object({...}))`);
  try {
    z.toJSONSchema(c.ToolInput, { target: "draft-2020-12", io: "input" });
  } catch (e) {
    throw new AgentDefinitionError("tool-input", `${label}: ToolInput must be JSON-able (${(e as Error).message})`);
  }
  if (typeof c.prototype?.run !== "function") throw new AgentDefinitionError("run", `${label}: must implement run(options, ctx)`);
  const fields = Object.keys(c.ToolInput.shape);
  const bakeable = c.presetBakeableFields ?? [];
  if (!Array.isArray(bakeable)) throw new AgentDefinitionError("bakeable-fields", `${label}: presetBakeableFields must be a list of ToolInput field names`);
  const unknown = bakeable.filter((f) => !fields.includes(f));
  if (unknown.length) throw new AgentDefinitionError("bakeable-fields", `${label}: presetBakeableFields names fields that are not in ToolInput: ${unknown.join(", ")}`);
  if (typeof c.specRunnable !== "boolean") throw new AgentDefinitionError("spec-runnable", `${label}: specRunnable must be a boolean`);
  if (!TIERS.includes(c.tier as never)) throw new AgentDefinitionError("tier", `${label}: tier must be one of ${TIERS.join(", ")}`);
  if (typeof c.timeoutSeconds !== "number" || !(c.timeoutSeconds > 0)) throw new AgentDefinitionError("timeout", `${label}: timeoutSeconds must be > 0`);
  const extras = c.extrasKeys ?? [];
  if (!Array.isArray(extras) || extras.some((k) => typeof k !== "string" || !k)) throw new AgentDefinitionError("extras-keys", `${label}: extrasKeys must be a list of key names`);
  const clash = extras.filter((k) => RUN_OPTION_KEYS.includes(k) || fields.includes(k));
  if (clash.length) throw new AgentDefinitionError("extras-keys", `${label}: extrasKeys names keys that are already run options or ToolInput fields: ${clash.join(", ")}`);
  if (typeof c.fromToolInput !== "function") throw new AgentDefinitionError("from-tool-input", `${label}: fromToolInput must be a static method`);
  return c as AgentClass;
}

/** The JSON Schema of an agent's tool input; unknown keys are refused at the tool's door. */
export function agentInputSchema(cls: AgentClass): Record<string, unknown> {
  const schema = z.toJSONSchema(cls.ToolInput, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  if (schema.additionalProperties === undefined) schema.additionalProperties = false;
  return schema;
}

/** The fields a preset may bake on this agent: "all" when specRunnable. */
export function bakeableFields(cls: AgentClass): string[] | "all" {
  return cls.specRunnable ? "all" : [...cls.presetBakeableFields];
}
