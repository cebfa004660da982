import { z } from "zod";
import { TIERS } from "../auth/roles.ts";
import { DefinitionError } from "../definition-error.ts";
import { fn, MAX_TIMER_SECONDS, NAME_PATTERN, wireSafeName } from "../validation/common.ts";
import { zodIssues } from "../validation/declaration.ts";
import type { AgentClass } from "./agent.ts";
import { RUN_OPTION_KEYS } from "./run-options.ts";

const TOOL_INPUT = "static ToolInput must be a zod object (z.object({...}))";
const BAKEABLE = "presetBakeableFields must be a list of ToolInput field names";
const EXTRAS = "extrasKeys must be a list of key names";

/** The statics of an agent class, each message naming the rule it breaks (docs/run-options.md). */
const AgentClassSchema = z
  .object({
    toolName: wireSafeName(`static toolName must match ${NAME_PATTERN}`),
    toolDescription: z
      .string({ error: "static toolDescription must not be empty" })
      .refine((d) => d.trim() !== "", { error: "static toolDescription must not be empty" }),
    ToolInput: z.instanceof(z.ZodObject, { error: TOOL_INPUT }).superRefine((input, ctx) => {
      try {
        z.toJSONSchema(input, { target: "draft-2020-12", io: "input" });
      } catch (e) {
        ctx.addIssue({ code: "custom", message: `ToolInput must be JSON-able (${(e as Error).message})` });
      }
    }),
    run: fn("must implement run(options, ctx)"),
    presetBakeableFields: z.array(z.string({ error: BAKEABLE }), { error: BAKEABLE }),
    specRunnable: z.boolean({ error: "specRunnable must be a boolean" }),
    tier: z.enum(TIERS, { error: `tier must be one of ${TIERS.join(", ")}` }),
    timeoutSeconds: z
      .number({ error: "timeoutSeconds must be > 0" })
      .gt(0, { error: "timeoutSeconds must be > 0" })
      .lte(MAX_TIMER_SECONDS, {
        error: `timeoutSeconds must be at most ${MAX_TIMER_SECONDS} (a timer cannot wait longer)`,
      }),
    extrasKeys: z.array(z.string({ error: EXTRAS }).min(1, { error: EXTRAS }), { error: EXTRAS }),
    fromToolInput: fn("fromToolInput must be a static method"),
  })
  .superRefine((c, ctx) => {
    const fields = Object.keys(c.ToolInput.shape);
    const unknown = c.presetBakeableFields.filter((f) => !fields.includes(f));
    if (unknown.length)
      ctx.addIssue({
        code: "custom",
        path: ["presetBakeableFields"],
        message: `presetBakeableFields names fields that are not in ToolInput: ${unknown.join(", ")}`,
      });
    const clash = c.extrasKeys.filter((k) => RUN_OPTION_KEYS.includes(k) || fields.includes(k));
    if (clash.length)
      ctx.addIssue({
        code: "custom",
        path: ["extrasKeys"],
        message: `extrasKeys names keys that are already run options or ToolInput fields: ${clash.join(", ")}`,
      });
  });

/** The rule each static of {@link AgentClassSchema} is held to. */
const RULES: Record<string, string> = {
  toolName: "wire-safe-name",
  toolDescription: "description",
  ToolInput: "tool-input",
  run: "run",
  presetBakeableFields: "bakeable-fields",
  specRunnable: "spec-runnable",
  tier: "tier",
  timeoutSeconds: "timeout",
  extrasKeys: "extras-keys",
  fromToolInput: "from-tool-input",
};

/**
 * Checks an agent class before it is registered: a wire-safe `toolName`, a non-empty
 * `toolDescription`, a zod object `ToolInput` that converts to JSON Schema, a `run`
 * method, and `presetBakeableFields` naming real ToolInput fields. A refusal names the
 * first rule broken and carries every issue.
 */
export function checkAgentClass(cls: unknown): AgentClass {
  if (typeof cls !== "function")
    throw new DefinitionError("agent.class", "app.agent takes an agent class (extends Agent)");
  const c = cls as Partial<AgentClass> & { name: string; prototype?: { run?: unknown } };
  const label = `agent class ${c.name || "(anonymous)"}`;
  const statics = {
    toolName: c.toolName,
    toolDescription: c.toolDescription,
    ToolInput: c.ToolInput,
    run: c.prototype?.run,
    presetBakeableFields: c.presetBakeableFields ?? [],
    specRunnable: c.specRunnable,
    tier: c.tier,
    timeoutSeconds: c.timeoutSeconds,
    extrasKeys: c.extrasKeys ?? [],
    fromToolInput: c.fromToolInput,
  };
  const parsed = AgentClassSchema.safeParse(statics);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new DefinitionError(`agent.${RULES[String(first.path[0])] ?? "class"}`, `${label}: ${first.message}`, {
      subject: label,
      issues: zodIssues(parsed.error),
    });
  }
  return c as AgentClass;
}

/** The JSON Schema of an agent's tool input; unknown keys are refused at the tool's door. */
export function agentInputSchema(cls: AgentClass): Record<string, unknown> {
  const schema = z.toJSONSchema(cls.ToolInput, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  if (schema.additionalProperties === undefined) schema.additionalProperties = false;
  return schema;
}

/** The fields a preset may bake on this agent: "all" when specRunnable. */
export function bakeableFields(cls: AgentClass): string[] | "all" {
  return cls.specRunnable ? "all" : [...cls.presetBakeableFields];
}
