import type { SurfaceEntry } from "../registry/surface-entry.ts";
import type { DispatchDeps, RunRequest } from "./request.ts";
import { seesCuratedSurface } from "./run-record.ts";

/**
 * The entry a request runs: its live tool, else its name on the surface its door sees (the API doors the curated
 * surface, in-process doors every registered name).
 *
 * A name created on another instance a moment ago may not have reached this one yet: on a miss the stored version is
 * checked, and the name looked up again whoever reloaded (the bus's reload may have applied it between the miss and
 * the check).
 */
export async function resolveEntry(
  deps: Pick<DispatchDeps, "surface" | "refresh">,
  req: RunRequest,
): Promise<SurfaceEntry | undefined> {
  const curated = seesCuratedSurface(req.door);
  const lookup = () => (curated ? deps.surface.resolve(req.tool) : deps.surface.base(req.tool));
  const found = req.live ?? lookup();
  if (found || !deps.refresh) return found;
  await deps.refresh().catch(() => false);
  return lookup();
}
