import type { App } from "../app.ts";
import type { ToolDefinition } from "../tools/definition.ts";
import type { EffectivePolicy, RetryPolicy } from "../retry/policy.ts";
import type { SurfaceEntry, ToolOrigin } from "./surface-entry.ts";
import type { Tier } from "../auth/roles.ts";

/** Builds the entries a source contributes (presets, branches, agents). */
export type EntrySource = (resolveBase: (name: string) => SurfaceEntry | undefined) => SurfaceEntry[];

/** A filter of {@link Surface.list}. */
export interface SurfaceFilter {
  origin?: ToolOrigin;
  tier?: Tier;
  /** Case-insensitive substring of name, label or description. */
  search?: string;
}

/**
 * The tool surface: what callers can see and dispatch. Rebuilt from the app's tools and
 * the registered entry sources; lookups are lock-free reads of an immutable snapshot, so
 * a rebuild swaps the whole surface atomically.
 */
export class Surface {
  private entries = new Map<string, SurfaceEntry>();
  private readonly sources: EntrySource[] = [];
  private readonly extraPolicies = new Map<string, RetryPolicy>();
  private readonly listeners = new Set<() => void>();
  private selection: ((name: string) => boolean) | null = null;

  /** `apps`: the handles whose tools and declarations make up the surface, in order. */
  constructor(private readonly apps: App[]) {
    this.rebuild();
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

  /** Recomputes every entry and notifies listeners (toolsChanged). */
  rebuild(): void {
    const next = new Map<string, SurfaceEntry>();
    for (const app of this.apps) for (const def of app.tools.values()) next.set(def.name, entryForTool(def));
    for (const source of this.sources) for (const e of source((n) => next.get(n))) if (!next.has(e.name)) next.set(e.name, e);
    this.entries = next;
    for (const l of this.listeners) l();
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

  /** A dispatchable entry (listed and selected), or undefined. */
  resolve(name: string): SurfaceEntry | undefined {
    const e = this.entries.get(name);
    return e && this.exposed(e) ? e : undefined;
  }

  private exposed(e: SurfaceEntry): boolean {
    return e.listed && (!this.selection || this.selection(e.name));
  }

  /** Any entry, curated ones included: what presets, extensions and agents build on. */
  base(name: string): SurfaceEntry | undefined {
    return this.entries.get(name);
  }

  list(filter: SurfaceFilter = {}): SurfaceEntry[] {
    const q = filter.search?.toLowerCase();
    return [...this.entries.values()]
      .filter((e) => this.exposed(e))
      .filter((e) => !filter.origin || e.origin === filter.origin)
      .filter((e) => !filter.tier || e.tier === filter.tier)
      .filter((e) => !q || [e.name, e.label ?? "", e.description].some((s) => s.toLowerCase().includes(q)))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Replaces the declarations that come from stored data (manifest `retry`). */
  setDeclaredPolicies(policies: Map<string, RetryPolicy>): void {
    this.extraPolicies.clear();
    for (const [k, v] of policies) this.extraPolicies.set(k, v);
  }

  /** The declaration on exactly `name`, if any. */
  declaredOn(name: string): RetryPolicy | undefined {
    const stored = this.extraPolicies.get(name);
    if (stored) return stored;
    // Later apps win, as they do for tool definitions: a user tool shadowing a demo tool of
    // the same name never inherits the shadowed tool's policy.
    const owner = this.ownerOf(name);
    if (owner?.policies.has(name)) return owner.policies.get(name);
    return [...this.apps].reverse().find((a) => !a.tools.has(name) && a.policies.has(name))?.policies.get(name);
  }

  /** The last app that registers a tool named `name` (the one whose definition is on the surface). */
  private ownerOf(name: string): App | undefined {
    return [...this.apps].reverse().find((a) => a.tools.has(name));
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

function entryForTool(def: ToolDefinition): SurfaceEntry {
  return {
    name: def.name,
    label: def.label,
    description: def.description,
    origin: "TOOL",
    tier: def.tier,
    inputSchema: def.parameters,
    outputSchema: def.outputSchema,
    executionMode: def.executionMode,
    pauses: def.pauses,
    extensionStack: [],
    timeoutSeconds: def.timeoutSeconds,
    listed: def.apiTool,
    policyChain: [def.name],
    prepare: (input) => (def.parse ? def.parse(input) : { ok: true, value: input }),
    invoke: async (input, ctx) => def.execute(input as Record<string, unknown>, ctx),
    resume: def.resume ? async (state, answers, ctx) => def.resume!(state, answers, ctx) : undefined,
    module: def.module,
  };
}
