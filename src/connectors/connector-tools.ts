import { TIERS, type Tier } from "../auth/roles.ts";
import type { UpstreamTool } from "./connector-kind.ts";
import type { ConnectorTool, StoredListing, ToolDecision } from "./connector-record.ts";

/**
 * The surface name of an upstream tool (docs/connectors.md §3): `<connector>_<tool>`, wire-safe, at most 128
 * characters.
 */
export function surfaceName(connector: string, tool: string): string {
  return `${connector}_${tool}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 128);
}

/** The higher of two tiers (read < write < fenced < secret). */
export function higherTier(a: Tier, b: Tier): Tier {
  return TIERS.indexOf(a) >= TIERS.indexOf(b) ? a : b;
}

/**
 * The pinned proposals of a new listing (docs/connectors.md §4): a tool's first proposal, raised by a later
 * higher one and never lowered by a lower one, also when the tool left the listing and came back.
 */
export function pinTiers(previous: Record<string, Tier>, tools: readonly UpstreamTool[]): Record<string, Tier> {
  // A tool that left the listing keeps its pin: removed, then re-added with a lower hint, it is never below what it was
  // (docs/connectors.md §4).
  return {
    ...previous,
    ...Object.fromEntries(
      tools.map((t) => [t.name, previous[t.name] ? higherTier(previous[t.name], t.proposedTier) : t.proposedTier]),
    ),
  };
}

/** The tier that applies to a tool: the ADMIN's decision, else the pinned proposal, else the proposal. */
export function appliedTier(
  tool: UpstreamTool,
  decision: ToolDecision | undefined,
  pinned: Record<string, Tier>,
): Tier {
  return decision?.tier ?? pinned[tool.name] ?? tool.proposedTier;
}

/** The tools of a listing as served (`ConnectorTool`), in listing order. */
export function connectorTools(
  connector: string,
  listing: StoredListing,
  decisions: Record<string, ToolDecision>,
): ConnectorTool[] {
  return listing.tools.map((tool) => {
    const decision = decisions[tool.name] ?? {};
    return {
      ...tool,
      surfaceName: surfaceName(connector, tool.name),
      tier: appliedTier(tool, decision, listing.pinned),
      tierAssigned: decision.tier !== undefined,
      enabled: decision.enabled ?? true,
      idempotent: decision.retry?.idempotent ?? false,
      decision,
    };
  });
}

/** Pairs of upstream tools of one listing that map to the same surface name. */
export function nameClashes(
  connector: string,
  tools: readonly UpstreamTool[],
): Array<{ name: string; tools: [string, string] }> {
  const seen = new Map<string, string>();
  const clashes: Array<{ name: string; tools: [string, string] }> = [];
  for (const t of tools) {
    const name = surfaceName(connector, t.name);
    const first = seen.get(name);
    if (first !== undefined) clashes.push({ name, tools: [first, t.name] });
    else seen.set(name, t.name);
  }
  return clashes;
}
