import type { Issue } from "../errors.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import { hasMarker, markerIssues } from "../secrets/markers.ts";
import { validate, type JsonSchema } from "../tools/json-schema.ts";

/**
 * What is wrong with baking `kwargs` over `base` (docs/composing-the-surface.md): a key the base already bakes, a
 * key that is not one of its input properties, an agent field that is not bakeable, a
 * malformed `!ENV` marker, or a value its schema refuses. Paths are `/fixedKwargs/<key>…`.
 */
export function bakedIssues(base: SurfaceEntry, kwargs: Record<string, unknown>): Issue[] {
  const issues: Issue[] = [];
  const props = (base.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const alreadyBaked = new Set(base.bakedKeys ?? []);
  for (const [key, value] of Object.entries(kwargs)) {
    const path = `/fixedKwargs/${key}`;
    if (alreadyBaked.has(key)) {
      issues.push({ path, message: `is already baked by "${base.name}"` });
      continue;
    }
    if (!Object.hasOwn(props, key)) {
      issues.push({
        path,
        message: `is not an input property of "${base.name}" (it has: ${Object.keys(props).join(", ") || "none"})`,
      });
      continue;
    }
    if (base.origin === "AGENT" && base.bakeableFields !== "all" && !(base.bakeableFields ?? []).includes(key)) {
      issues.push({ path, message: `is not a preset-bakeable field of agent "${base.name}"` });
      continue;
    }
    const marker = markerIssues(value, path);
    if (marker.length) {
      issues.push(...marker);
      continue;
    }
    // A marker's value is only known when the preset runs; it is checked then.
    if (hasMarker(value)) continue;
    for (const i of validate(props[key], value)) issues.push({ path: path + i.path, message: i.message });
  }
  return issues;
}
