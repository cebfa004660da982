import type { Bus } from "../events/bus.ts";
import type { Db } from "../db/client.ts";
import type { Logger } from "../log.ts";
import { combosOf } from "../manifests/validate-document.ts";
import type { ManifestDocument } from "../manifests/manifest.ts";
import { selectionOf } from "../manifests/selection.ts";
import { presetEntry } from "../presets/preset-entry.ts";
import type { Preset } from "../presets/preset.ts";
import { toPreset } from "../presets/preset-service.ts";
import { resolvePolicy, type RetryPolicy, type RetryPolicyInit } from "../retry/policy.ts";
import type { SurfaceEntry } from "./surface-entry.ts";
import type { Surface } from "./surface.ts";

/**
 * Applies what is stored (presets and the active manifest) to the in-memory surface, on
 * start and after every write; other instances reload on the bus's `configChanged`.
 */
export class StoredSurface {
  private presets: Preset[] = [];
  private manifest: ManifestDocument | null = null;
  private readonly unlisten: () => void;

  constructor(
    private readonly db: Db,
    private readonly surface: Surface,
    private readonly bus: Bus,
    private readonly instanceId: string,
    private readonly log: Logger,
  ) {
    surface.addSource((resolveBase) => this.presetEntries(resolveBase));
    this.unlisten = bus.listen("configChanged", ({ instanceId: from }) => {
      if (from !== instanceId) this.load().catch((e: Error) => log.error("reloading stored configuration failed", { error: e.message }));
    });
  }

  /** Reads presets and the active manifest, and swaps the surface in one rebuild. */
  async load(): Promise<void> {
    const [rows, active] = await Promise.all([this.db.preset.findMany(), this.db.manifest.findFirst({ where: { active: true } })]);
    this.presets = rows.map(toPreset);
    this.manifest = (active?.document as ManifestDocument | undefined) ?? null;
    const policies = new Map<string, RetryPolicy>();
    for (const p of this.presets) if (p.retryPolicy) policies.set(p.name, p.retryPolicy);
    for (const [name, init] of Object.entries(this.manifest?.retry ?? {})) {
      try {
        policies.set(name, resolvePolicy(name, init as RetryPolicyInit));
      } catch (e) {
        this.log.error("a stored retry declaration is invalid and was ignored", { name, error: (e as Error).message });
      }
    }
    this.surface.setDeclaredPolicies(policies);
    this.surface.setSelection(this.manifest ? selectionOf(this.manifest) : null);
    this.surface.rebuild();
  }

  /** After a local write: reload here, then tell the other instances. */
  async changed(): Promise<void> {
    await this.load();
    this.bus.publish("configChanged", { instanceId: this.instanceId });
  }

  /** The active manifest's extensions map, normalised (bound by the extensions layer). */
  activeExtensions(): Array<{ tool: string; combos: ReturnType<typeof combosOf> }> {
    return Object.entries(this.manifest?.extensions ?? {}).map(([tool, v]) => ({ tool, combos: combosOf(v) }));
  }

  close(): void {
    this.unlisten();
  }

  private presetEntries(resolveBase: (name: string) => SurfaceEntry | undefined): SurfaceEntry[] {
    const byName = new Map(this.presets.map((p) => [p.name, p]));
    const built = new Map<string, SurfaceEntry | null>();
    const build = (p: Preset, depth: number): SurfaceEntry | null => {
      if (built.has(p.name)) return built.get(p.name)!;
      built.set(p.name, null); // guards a stored cycle
      const parent = byName.get(p.baseTool);
      const base = resolveBase(p.baseTool) ?? (parent && depth < 100 ? build(parent, depth + 1) : null);
      const entry = base ? presetEntry(p, base) : null;
      if (!base) this.log.warn("a stored preset's base is missing; the preset is off the surface", { preset: p.name, baseTool: p.baseTool });
      built.set(p.name, entry);
      return entry;
    };
    return this.presets.map((p) => build(p, 0)).filter((e): e is SurfaceEntry => e !== null);
  }
}
