import type { Registrations } from "./registry.ts";
import { entryForTool } from "./entries/tool-entry.ts";
import type { EffectivePolicy, RetryPolicy } from "../retry/policy.ts";
import type { SurfaceEntry } from "./surface-entry.ts";
import { SurfaceSnapshot, type StoredState, type SurfaceFilter, type SurfaceView } from "./surface-snapshot.ts";
import type { Manifest } from "../manifests/manifest.ts";

/** Builds the entries a source contributes (presets, branches, agents). */
export type EntrySource = (resolveBase: (name: string) => SurfaceEntry | undefined) => SurfaceEntry[];

/**
 * The tool surface: what callers can see and dispatch. Rebuilt from the app's tools and
 * the registered entry sources into an immutable {@link SurfaceSnapshot}; lookups read
 * the current snapshot, and a rebuild swaps the whole surface atomically. A reader that
 * must see one version across several lookups holds {@link Surface.snapshot}.
 */
export class Surface implements SurfaceView {
  private current: SurfaceSnapshot;
  private readonly sources: EntrySource[] = [];
  private policies: ReadonlyMap<string, RetryPolicy> = new Map();
  private stored: StoredState = { version: 0, activeManifest: null };
  private readonly listeners = new Set<() => void>();
  private selection: ((name: string) => boolean) | null = null;

  /** `apps`: the registrations (app handles) whose tools and declarations make up the surface, in order. */
  constructor(private readonly apps: readonly Pick<Registrations, "tools" | "policies">[]) {
    this.current = this.build();
  }

  /**
   * Adds a source of entries; takes effect at the next rebuild. "primary" sources (agents)
   * are built before "composed" ones (presets, branches), which may build on them.
   */
  addSource(source: EntrySource, phase: "primary" | "composed" = "primary"): void {
    if (phase === "primary") this.sources.splice(this.primaryCount++, 0, source);
    else this.sources.push(source);
  }
  private primaryCount = 0;

  /** Recomputes every entry, swaps the new snapshot in and notifies listeners (toolsChanged). */
  rebuild(): void {
    this.current = this.build();
    for (const l of this.listeners) l();
  }

  private build(): SurfaceSnapshot {
    const next = new Map<string, SurfaceEntry>();
    for (const app of this.apps) for (const def of app.tools.values()) next.set(def.name, entryForTool(def));
    for (const source of this.sources)
      for (const e of source((n) => next.get(n))) if (!next.has(e.name)) next.set(e.name, e);
    return new SurfaceSnapshot(next, this.selection, this.policies, this.apps, this.stored);
  }

  /** The current state, immutable: every lookup on it answers from one version. */
  snapshot(): SurfaceSnapshot {
    return this.current;
  }

  /** The stored surface version the current state was built from. */
  get version(): number {
    return this.current.version;
  }

  /** The manifest the current state applies. */
  get activeManifest(): Manifest | null {
    return this.current.activeManifest;
  }

  /** Contract: called after every rebuild. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Limits what is listed and dispatchable to the names `selected` accepts (the active
   * manifest's tool selection); null exposes every listed entry. Takes effect at the
   * next rebuild.
   */
  setSelection(selected: ((name: string) => boolean) | null): void {
    this.selection = selected;
  }

  /** Records what the stored part of the surface was read from; takes effect at the next rebuild. */
  setStored(stored: StoredState): void {
    this.stored = stored;
  }

  /** A dispatchable entry (listed and selected), or undefined. */
  resolve(name: string): SurfaceEntry | undefined {
    return this.current.resolve(name);
  }

  /** Any entry, curated ones included: what presets, extensions and agents build on, and in-process doors run. */
  base(name: string): SurfaceEntry | undefined {
    return this.current.base(name);
  }

  /** Whether an entry is on the curated surface (listed and selected) rather than kept off the API. */
  exposes(entry: SurfaceEntry): boolean {
    return this.current.exposes(entry);
  }

  list(filter: SurfaceFilter = {}): SurfaceEntry[] {
    return this.current.list(filter);
  }

  /** Replaces the declarations that come from stored data (manifest `retry`); takes effect at the next rebuild. */
  setDeclaredPolicies(policies: Map<string, RetryPolicy>): void {
    this.policies = new Map(policies);
  }

  /** The declaration on exactly `name`, if any. */
  declaredOn(name: string): RetryPolicy | undefined {
    return this.current.declaredOn(name);
  }

  /** The policy that applies to an entry: the first declaration along its chain. */
  policyFor(entry: SurfaceEntry): EffectivePolicy | undefined {
    return this.current.policyFor(entry);
  }
}
