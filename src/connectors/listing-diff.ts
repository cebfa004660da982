import { isDeepStrictEqual } from "node:util";
import type { UpstreamTool } from "./connector-kind.ts";
import type { ListingDiff, StoredListing } from "./connector-record.ts";
import { surfaceName } from "./connector-tools.ts";

const FIELDS = ["inputSchema", "outputSchema", "description", "annotations", "proposedTier"] as const;

/**
 * How `next` differs from `previous` (docs/connectors.md §7), by surface name: tools added,
 * removed, and changed with the fields that changed. `broken` is left empty (the
 * dependants are found by `dependants.ts`).
 */
export function diffListings(
  connector: string,
  previous: Pick<StoredListing, "tools"> | null,
  next: Pick<StoredListing, "tools">,
): ListingDiff {
  const before = new Map((previous?.tools ?? []).map((t) => [surfaceName(connector, t.name), t]));
  const after = new Map(next.tools.map((t) => [surfaceName(connector, t.name), t]));
  const added = [...after.keys()].filter((n) => !before.has(n)).sort();
  const removed = [...before.keys()].filter((n) => !after.has(n)).sort();
  const changed: ListingDiff["changed"] = [];
  for (const [name, tool] of after) {
    const old = before.get(name);
    if (!old) continue;
    const fields = FIELDS.filter((f) => !isDeepStrictEqual(normal(old, f), normal(tool, f)));
    if (fields.length) changed.push({ name, fields: [...fields] });
  }
  changed.sort((a, b) => a.name.localeCompare(b.name));
  return { added, removed, changed, broken: [] };
}

/**
 * Whether a listing differs at all from the stored one (the tools, `title`/`pauses`/`binding` included, and the refused
 * ones).
 */
export function listingDiffers(
  previous: Omit<StoredListing, "pinned"> | null,
  next: Omit<StoredListing, "pinned">,
): boolean {
  if (!previous) return true;
  return (
    !isDeepStrictEqual(JSON.parse(JSON.stringify(previous.tools)), JSON.parse(JSON.stringify(next.tools))) ||
    !isDeepStrictEqual(previous.refused, next.refused)
  );
}

function normal(tool: UpstreamTool, field: (typeof FIELDS)[number]): unknown {
  const v = tool[field];
  return v === undefined ? null : JSON.parse(JSON.stringify(v));
}

/** Whether a diff names any change. */
export function isEmptyDiff(diff: ListingDiff): boolean {
  return !diff.added.length && !diff.removed.length && !diff.changed.length;
}
