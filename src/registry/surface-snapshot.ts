import type { Registrations } from "./registry.ts";
import type { Manifest } from "../manifests/manifest.ts";
import type { EffectivePolicy, RetryPolicy } from "../retry/policy.ts";
import type { SurfaceEntry, ToolOrigin } from "./surface-entry.ts";
import type { Tier } from "../auth/roles.ts";

/** A filter of `list` (of a surface or a snapshot). */
export interface SurfaceFilter {
  origin?: ToolOrigin;
  tier?: Tier;
  /** Case-insensitive substring of name, label or description. */
  search?: string;
  /** Also the curated entries (the whole registered set): for in-process doors only, never the API. */
  includeCurated?: boolean;
}

/** What the stored part of a surface was built from: the stored version and its active manifest. */
export interface StoredState {
  /** The stored surface version it was read at (`registry/surface-version.ts`); 0 before any load. */
  version: number;
  /** The manifest that was active at that version, as it was stored then; null when none. */
  activeManifest: Manifest | null;
}

/** What reads the surface: its current state ({@link Surface}) or one pinned state ({@link SurfaceSnapshot}). */
export interface SurfaceView {
  /** The stored surface version the state was built from. */
  readonly version: number;
  /** The manifest the state applies (null: no manifest is active). */
  readonly activeManifest: Manifest | null;
  resolve(name: string): SurfaceEntry | undefined;
  base(name: string): SurfaceEntry | undefined;
  list(filter?: SurfaceFilter): SurfaceEntry[];
  declaredOn(name: string): RetryPolicy | undefined;
  policyFor(entry: SurfaceEntry): EffectivePolicy | undefined;
}

/**
 * One immutable state of the tool surface: its entries, the active manifest's selection
 * and retry declarations, and the stored version they came from. A rebuild makes a new
 * snapshot and swaps it in whole, so a reader holding one (a GraphQL query, see
 * `graphql/pinned-surface.ts`) sees a single version from its first field to its last:
 * the tools it lists and the manifest it names always agree.
 */
export class SurfaceSnapshot implements SurfaceView {
  constructor(
    private readonly entries: ReadonlyMap<string, SurfaceEntry>,
    private readonly selection: ((name: string) => boolean) | null,
    private readonly policies: ReadonlyMap<string, RetryPolicy>,
    /** The handles whose code-declared policies apply, in order. */
    private readonly apps: readonly Pick<Registrations, "tools" | "policies">[],
    readonly stored: StoredState,
  ) {}

  /** The stored surface version this snapshot was built from. */
  get version(): number {
    return this.stored.version;
  }

  /** The manifest this snapshot applies (null: no manifest is active). */
  get activeManifest(): Manifest | null {
    return this.stored.activeManifest;
  }

  /** A dispatchable entry (listed and selected), or undefined. */
  resolve(name: string): SurfaceEntry | undefined {
    const e = this.entries.get(name);
    return e && this.exposes(e) ? e : undefined;
  }

  /** Any entry, curated ones included: what presets, extensions and agents build on, and in-process doors run. */
  base(name: string): SurfaceEntry | undefined {
    return this.entries.get(name);
  }

  /** Whether an entry is on the curated surface (listed and selected) rather than kept off the API. */
  exposes(e: SurfaceEntry): boolean {
    return e.listed && (!this.selection || this.selection(e.name));
  }

  list(filter: SurfaceFilter = {}): SurfaceEntry[] {
    const q = filter.search?.toLowerCase();
    return [...this.entries.values()]
      .filter((e) => filter.includeCurated || this.exposes(e))
      .filter((e) => !filter.origin || e.origin === filter.origin)
      .filter((e) => !filter.tier || e.tier === filter.tier)
      .filter((e) => !q || [e.name, e.label ?? "", e.description].some((s) => s.toLowerCase().includes(q)))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The declaration on exactly `name`, if any. */
  declaredOn(name: string): RetryPolicy | undefined {
    const stored = this.policies.get(name);
    if (stored) return stored;
    // Later apps win, as they do for tool definitions: a user tool shadowing a demo tool of
    // the same name never inherits the shadowed tool's policy.
    const owner = [...this.apps].reverse().find((a) => a.tools.has(name));
    if (owner?.policies.has(name)) return owner.policies.get(name);
    return [...this.apps]
      .reverse()
      .find((a) => !a.tools.has(name) && a.policies.has(name))
      ?.policies.get(name);
  }

  /** The policy that applies to an entry: the first declaration along its chain. */
  policyFor(entry: SurfaceEntry): EffectivePolicy | undefined {
    for (const name of entry.policyChain) {
      const policy = this.declaredOn(name);
      if (policy) return { policy, declaredOn: name };
    }
    return undefined;
  }
}
