import type { Bus } from "../events/bus.ts";
import { toManifest } from "../manifests/manifest-service.ts";
import type { Db } from "../db/client.ts";
import type { Logger } from "../log.ts";
import { combosOf } from "../manifests/validate-document.ts";
import type { ComboItem, ManifestDocument } from "../manifests/manifest.ts";
import { bindCombo, branchName } from "../registry/entries/branch-entry.ts";
import type { ExtensionDefinition } from "../extensions/extension.ts";
import { selectionOf } from "../manifests/selection.ts";
import { presetEntry } from "../registry/entries/preset-entry.ts";
import type { Preset } from "../presets/preset.ts";
import { toPreset } from "../presets/preset-service.ts";
import { resolvePolicy, type RetryPolicy, type RetryPolicyInit } from "../retry/policy.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import type { Surface } from "../registry/surface.ts";
import type { Secrets } from "../secrets/secrets.ts";
import { learnStoredMarkers } from "../secrets/stored-markers.ts";
import { SurfaceSync } from "./surface-sync.ts";
import type { PresetBinding } from "../presets/preset-binding.ts";
import { readSurfaceVersion } from "../registry/surface-version.ts";

/**
 * A stored part of the surface read by every load besides presets and the manifest (the connectors,
 * `connectors/connector-entries.ts`).
 */
export interface StoredPart {
  /** Reads its rows (after the surface version was read). */
  read(): Promise<void>;
  /** Retry declarations it makes, by name. */
  policies(): Map<string, RetryPolicy>;
  /** The entries it contributes, built on demand at each rebuild (a "primary" source). */
  entries(): SurfaceEntry[];
  /** Called once the load is applied to the surface. */
  applied?(): void;
}

/**
 * Applies what is stored (presets and the active manifest) to the in-memory surface, on
 * start and after every write, and keeps it converged with the other instances and the
 * CLI through {@link SurfaceSync} (the bus's `configChanged`, and a poll of the stored
 * surface version every `TAI_SYNC_SECONDS`).
 */
export class StoredSurface implements PresetBinding {
  private presets: Preset[] = [];
  private manifest: ManifestDocument | null = null;
  private applied = 0;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  /** The convergence with the store: bus fast path, version poll, refresh on a miss. */
  readonly sync: SurfaceSync;

  constructor(
    private readonly db: Db,
    private readonly surface: Surface,
    bus: Bus,
    instanceId: string,
    private readonly log: Logger,
    /** Learns the stored markers' values at every load, and resolves markers at bind and run. */
    private readonly secrets: Secrets,
    /** The extension catalog branches bind against. */
    private readonly catalog: (name: string) => ExtensionDefinition | undefined,
    /** Imports the active manifest's extensionsModules before its branches bind. */
    private readonly loadModules: (modules: string[]) => Promise<unknown> = async () => {},
    private readonly parts: readonly StoredPart[] = [],
    /** Reads the stored version for {@link SurfaceSync}'s checks (default: through Prisma). */
    readVersion?: () => Promise<number>,
  ) {
    for (const part of parts) surface.addSource(() => part.entries(), "primary");
    surface.addSource((resolveBase) => this.storedEntries(resolveBase), "composed");
    this.sync = new SurfaceSync(db, this, bus, instanceId, log, readVersion);
  }

  /** The stored surface version the applied state was read at. */
  get version(): number {
    return this.applied;
  }

  /** How many loads have applied so far (metrics). */
  loads = 0;

  /**
   * Reads presets and the active manifest, and swaps the surface in one rebuild. Loads
   * run one at a time; a call made while one runs (which may have read before the
   * caller's write) is answered by the next one, shared by every caller that waited.
   */
  load(): Promise<void> {
    if (!this.running) {
      this.running = this.loadOnce().finally(() => {
        this.running = null;
      });
      return this.running;
    }
    this.queued ??= this.running
      .catch(() => {})
      .then(() => {
        this.queued = null;
        return this.load();
      });
    return this.queued;
  }

  /** After a local write: applies it here, then tells the other instances (never throws once the write is stored). */
  changed(): Promise<void> {
    return this.sync.changed();
  }

  private async loadOnce(): Promise<void> {
    // The version first: data read after it is at least that new, so a write that lands
    // in between is seen again at the next check rather than missed.
    const version = await readSurfaceVersion(this.db);
    const [rows, active] = await Promise.all([
      this.db.preset.findMany(),
      this.db.manifest.findFirst({ where: { active: true } }),
      learnStoredMarkers(this.db, this.secrets),
      ...this.parts.map((p) => p.read()),
    ]);
    const manifest = (active?.document as ManifestDocument | undefined) ?? null;
    // The modules load before the new manifest is applied: each registration in them
    // rebuilds the surface, and a rebuild binding the new branches against a half-loaded
    // module would log "does not bind" for extensions about to exist.
    if (manifest?.extensionsModules?.length) {
      try {
        await this.loadModules(manifest.extensionsModules);
      } catch (e) {
        this.log.error("an extension module of the active manifest failed to load; its branches stay off the surface", {
          error: (e as Error).message,
        });
      }
    }
    this.presets = rows.map(toPreset);
    this.manifest = manifest;
    const policies = new Map<string, RetryPolicy>();
    for (const part of this.parts) for (const [name, policy] of part.policies()) policies.set(name, policy);
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
    this.surface.setStored({ version, activeManifest: active ? toManifest(active) : null });
    this.applied = version;
    this.loads++;
    this.surface.rebuild();
    for (const part of this.parts) part.applied?.();
  }

  /** The active manifest's extensions map, normalised (bound by the extensions layer). */
  activeExtensions(): Array<{ tool: string; combos: ReturnType<typeof combosOf> }> {
    return Object.entries(this.manifest?.extensions ?? {}).map(([tool, v]) => ({ tool, combos: combosOf(v) }));
  }

  close(): void {
    this.sync.close();
  }

  branch(name: string): { tool: string; combo: ComboItem[] } | undefined {
    for (const { tool, combos } of this.activeExtensions())
      for (const combo of combos) if (branchName(tool, combo) === name) return { tool, combo };
    return undefined;
  }

  combosOver(tool: string): ComboItem[][] {
    return this.activeExtensions().find((e) => e.tool === tool)?.combos ?? [];
  }

  bind(base: SurfaceEntry, combo: ComboItem[]): SurfaceEntry {
    return bindCombo(base, combo, this.catalog, this.secrets);
  }

  presetEntry(preset: Preset, base: SurfaceEntry): SurfaceEntry {
    return presetEntry(preset, base, this.secrets);
  }

  /**
   * Presets and bound branches, built on demand in dependency order: a preset may build
   * on a branch and a branch on a preset. An entry whose base is missing, or whose combo
   * no longer binds (a missing `!ENV` variable, say), stays off the surface and is logged.
   */
  private storedEntries(resolveBase: (name: string) => SurfaceEntry | undefined): SurfaceEntry[] {
    const presets = new Map(this.presets.map((p) => [p.name, p]));
    const branches = new Map<string, { tool: string; combo: ComboItem[] }>();
    for (const { tool, combos } of this.activeExtensions())
      for (const combo of combos) branches.set(branchName(tool, combo), { tool, combo });
    const built = new Map<string, SurfaceEntry | null>();
    const resolve = (name: string, depth: number): SurfaceEntry | undefined => {
      const tool = resolveBase(name);
      if (tool) return tool;
      if (built.has(name)) return built.get(name) ?? undefined;
      if (depth > 100) return undefined;
      built.set(name, null); // guards a stored cycle
      let entry: SurfaceEntry | null = null;
      const preset = presets.get(name);
      const branch = branches.get(name);
      if (preset) {
        const base = resolve(preset.baseTool, depth + 1);
        if (base) entry = presetEntry(preset, base, this.secrets);
        else
          this.log.warn("a stored preset's base is missing; the preset is off the surface", {
            preset: name,
            baseTool: preset.baseTool,
          });
      } else if (branch) {
        const base = resolve(branch.tool, depth + 1);
        try {
          if (!base) throw new Error(`its tool "${branch.tool}" is not on the surface`);
          entry = bindCombo(base, branch.combo, this.catalog, this.secrets);
        } catch (e) {
          this.log.error("a branch of the active manifest does not bind; it is off the surface", {
            branch: name,
            error: (e as Error).message,
          });
        }
      }
      built.set(name, entry);
      return entry ?? undefined;
    };
    return [...presets.keys(), ...branches.keys()]
      .map((n) => resolve(n, 0))
      .filter((e): e is SurfaceEntry => e !== undefined && (e.origin === "PRESET" || e.origin === "BRANCH"));
  }
}
