import { describeIssues, type Issue } from "../../errors.ts";
import type { Preset } from "../../presets/preset.ts";
import type { Secrets } from "../../secrets/secrets.ts";
import type { JsonSchema } from "../../tools/json-schema.ts";
import type { SurfaceEntry } from "../surface-entry.ts";
import { preparedForBase } from "./prepare-input.ts";

/**
 * The base's input schema with the baked properties removed from both `properties` and
 * `required`.
 */
export function derivePresetSchema(base: JsonSchema, baked: string[]): JsonSchema {
  const properties = { ...((base.properties as Record<string, unknown>) ?? {}) };
  for (const k of baked) delete properties[k];
  const required = Array.isArray(base.required)
    ? (base.required as string[]).filter((k) => !baked.includes(k))
    : undefined;
  const out: JsonSchema = { ...base, properties };
  if (required) out.required = required;
  return out;
}

/**
 * The keys of `input` a preset bakes (`bakedKeys`: its own and its ancestors'), each an
 * issue at `/<key>` worded by `message`: a caller never passes a baked constant
 * (docs/composing-the-surface.md).
 */
export function bakedOverrides(input: object, bakedKeys: readonly string[], message: string): Issue[] {
  return bakedKeys.filter((k) => Object.hasOwn(input, k)).map((k) => ({ path: `/${k}`, message }));
}

/** A caller's input with a preset's constants baked in, or why it was refused. */
export type BakedInput = { ok: true; value: Record<string, unknown> } | { ok: false; issues: Issue[] };

/**
 * A preset's rules applied to a caller's input: refused when it passes a key the preset
 * bakes ({@link bakedOverrides}), else merged with `fixedKwargs`. An agent run's inline
 * preset, which has no entry of its own, bakes through it (docs/architecture.md, "Agents
 * and presets"); a stored preset's entry refuses at the chokepoint and merges at each run,
 * once its `!ENV` markers are resolved.
 */
export function bakeInput(
  input: Record<string, unknown>,
  fixedKwargs: Record<string, unknown>,
  message: string,
): BakedInput {
  const issues = bakedOverrides(input, Object.keys(fixedKwargs), message);
  return issues.length ? { ok: false, issues } : { ok: true, value: { ...input, ...fixedKwargs } };
}

/**
 * The surface entry of a preset: the base's body with baked constants. `!ENV` markers
 * are resolved at each run, never earlier, by the runtime's secrets (which refuse server
 * configuration and remember each value).
 */
export function presetEntry(preset: Preset, base: SurfaceEntry, secrets: Secrets): SurfaceEntry {
  const baked = Object.keys(preset.fixedKwargs);
  return {
    name: preset.name,
    label: undefined,
    description: preset.description,
    origin: "PRESET",
    tier: base.tier,
    inputSchema: derivePresetSchema(base.inputSchema, baked),
    outputSchema: base.outputSchema,
    executionMode: base.executionMode,
    pauses: base.pauses,
    baseTool: base.name,
    extensionStack: [],
    fixedKwargs: preset.fixedKwargs,
    bakedKeys: [...new Set([...baked, ...(base.bakedKeys ?? [])])],
    timeoutSeconds: base.timeoutSeconds,
    listed: true,
    policyChain: [preset.name, ...base.policyChain],
    limits: preset.limits ?? undefined,
    prepare: (input) => ({ ok: true, value: input }),
    invoke: async (input, ctx) => {
      const resolved = secrets.resolve(preset.fixedKwargs, `preset "${preset.name}"`) as Record<string, unknown>;
      const merged = { ...(input as Record<string, unknown>), ...resolved };
      const prepared = preparedForBase(
        base,
        merged,
        (r) =>
          `preset "${preset.name}": ${r.refusedBy === "schema" ? `the baked input does not fit "${base.name}": ` : ""}${describeIssues(r.issues)}`,
      );
      return base.invoke(prepared, ctx);
    },
    module: "preset",
  };
}
