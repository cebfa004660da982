import type { AppliedLimits } from "../limits/flow-control.ts";
import type { EffectivePolicy } from "../retry/policy.ts";
import { appliedLimits } from "./run-limits.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import type { DispatchDeps, RunRequest } from "./request.ts";
import { seesCuratedSurface } from "./run-record.ts";

/** What a request runs, read from one surface version: its entry and the retry policy that applies to it. */
export interface Resolved {
  entry: SurfaceEntry;
  policy: EffectivePolicy | undefined;
  /** The limits along its chain (`run-limits.ts`). */
  limits: AppliedLimits;
}

/**
 * The entry a request runs, with its retry policy: its live tool, else its name on the surface its door sees (the API
 * doors the curated surface, in-process doors every registered name).
 *
 * Every request first waits for a check of the stored surface version that started after the request did, and the
 * reload it triggers when the version moved (docs/deploy.md §"Configuration converges"): a preset created, or a
 * manifest activated, on another instance before this request started is what this request sees, never the surface
 * from before it. The checks are shared by the requests waiting on them (one read in flight at a time). The entry and
 * its policy are read from one snapshot, so one request never mixes two versions. A failed check leaves the surface
 * as it is (the run's first write meets the same database).
 */
export async function resolveRun(
  deps: Pick<DispatchDeps, "surface" | "refresh">,
  req: RunRequest,
): Promise<Resolved | undefined> {
  if (!req.live && deps.refresh) await deps.refresh().catch(() => false);
  const snapshot = deps.surface.snapshot();
  const entry = req.live ?? (seesCuratedSurface(req.door) ? snapshot.resolve(req.tool) : snapshot.base(req.tool));
  return entry && { entry, policy: snapshot.policyFor(entry), limits: appliedLimits(snapshot, entry) };
}

/** The entry a request runs ({@link resolveRun}). */
export async function resolveEntry(
  deps: Pick<DispatchDeps, "surface" | "refresh">,
  req: RunRequest,
): Promise<SurfaceEntry | undefined> {
  return (await resolveRun(deps, req))?.entry;
}
