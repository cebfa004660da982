import type { ManifestDocument } from "../manifests/manifest.ts";
import { isGlob } from "../manifests/selection.ts";
import type { Tx } from "../registry/surface-version.ts";
import type { BrokenDependant, StoredListing } from "./connector-record.ts";
import { surfaceName } from "./connector-tools.ts";

/** What a listing change is checked against: the stored presets and the active manifest. */
export interface Dependants {
  presets: Array<{ name: string; baseTool: string; fixedKwargs: unknown }>;
  manifest: { name: string; document: ManifestDocument } | null;
}

/** Reads the dependants inside a configuration write's transaction (serialised with every other write). */
export async function readDependants(tx: Tx): Promise<Dependants> {
  const [presets, active] = await Promise.all([
    tx.preset.findMany({ select: { name: true, baseTool: true, fixedKwargs: true }, orderBy: { name: "asc" } }),
    tx.manifest.findFirst({ where: { active: true }, select: { name: true, document: true } }),
  ]);
  return { presets, manifest: active ? { name: active.name, document: active.document as ManifestDocument } : null };
}

/**
 * What replacing a connector's listing `before` by `after` breaks (docs/connectors.md §7):
 * a stored preset whose base tool was removed (and every preset built on it, all the way
 * up) or whose baked keys left the base's input schema; the active manifest's tool
 * selection or extensions naming a removed tool. `after` null: the connector is deleted.
 */
export function brokenDependants(
  connector: string,
  before: Pick<StoredListing, "tools">,
  after: Pick<StoredListing, "tools"> | null,
  deps: Dependants,
): BrokenDependant[] {
  const now = new Map((after?.tools ?? []).map((t) => [surfaceName(connector, t.name), t]));
  const removed = new Set(before.tools.map((t) => surfaceName(connector, t.name)).filter((n) => !now.has(n)));
  const broken: BrokenDependant[] = [];
  const brokenPresets = new Set<string>();
  for (const p of deps.presets) {
    if (removed.has(p.baseTool)) {
      broken.push({
        name: p.name,
        kind: "PRESET",
        tool: p.baseTool,
        reason: `its base tool "${p.baseTool}" was removed`,
      });
      brokenPresets.add(p.name);
      continue;
    }
    const tool = now.get(p.baseTool);
    const properties =
      tool?.inputSchema && typeof tool.inputSchema === "object"
        ? (tool.inputSchema as { properties?: Record<string, unknown> }).properties
        : undefined;
    if (!tool || !properties) continue;
    const gone = Object.keys((p.fixedKwargs ?? {}) as Record<string, unknown>).filter(
      (k) => !Object.hasOwn(properties, k),
    );
    if (gone.length) {
      broken.push({
        name: p.name,
        kind: "PRESET",
        tool: p.baseTool,
        reason: `its baked ${gone.length === 1 ? "key" : "keys"} ${gone.map((k) => `"${k}"`).join(", ")} left the input schema of "${p.baseTool}"`,
      });
      brokenPresets.add(p.name);
    }
  }
  // A preset over a broken preset is off the surface with it.
  for (let grew = true; grew;) {
    grew = false;
    for (const p of deps.presets)
      if (!brokenPresets.has(p.name) && brokenPresets.has(p.baseTool)) {
        broken.push({
          name: p.name,
          kind: "PRESET",
          tool: p.baseTool,
          reason: `its base preset "${p.baseTool}" is broken`,
        });
        brokenPresets.add(p.name);
        grew = true;
      }
  }
  const m = deps.manifest;
  if (m) {
    for (const name of m.document.tools?.include ?? [])
      if (!isGlob(name) && removed.has(name))
        broken.push({
          name: m.name,
          kind: "MANIFEST",
          tool: name,
          reason: `its tool selection names "${name}", which was removed`,
        });
    for (const name of Object.keys(m.document.extensions ?? {}))
      if (removed.has(name))
        broken.push({
          name: m.name,
          kind: "MANIFEST",
          tool: name,
          reason: `its extensions attach to "${name}", which was removed`,
        });
  }
  return broken;
}
