import { describeIssues } from "../../errors.ts";
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
  const required = Array.isArray(base.required) ? (base.required as string[]).filter((k) => !baked.includes(k)) : undefined;
  const out: JsonSchema = { ...base, properties };
  if (required) out.required = required;
  return out;
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
    prepare: (input) => ({ ok: true, value: input }),
    invoke: async (input, ctx) => {
      const resolved = secrets.resolve(preset.fixedKwargs, `preset "${preset.name}"`) as Record<string, unknown>;
      const merged = { ...(input as Record<string, unknown>), ...resolved };
      const prepared = preparedForBase(base, merged, (r) => `preset "${preset.name}": ${r.refusedBy === "schema" ? `the baked input does not fit "${base.name}": ` : ""}${describeIssues(r.issues)}`);
      return base.invoke(prepared, ctx);
    },
    module: "preset",
  };
}
