import type { Runtime, RuntimeOptions } from "./runtime-types.ts";
import type { Late } from "./runtime/late.ts";
import { openStores } from "./runtime/open-stores.ts";
import { registerBuiltins } from "./runtime/register-builtins.ts";
import { joinCluster } from "./runtime/join-cluster.ts";
import { buildDispatch } from "./runtime/build-dispatch.ts";
import { buildAgents } from "./runtime/build-agents.ts";
import { loadStoredSurface } from "./runtime/load-stored-surface.ts";
import { buildServices } from "./runtime/build-services.ts";
import { buildSchedules } from "./runtime/build-schedules.ts";
import { runtimeObject } from "./runtime/runtime-object.ts";

export type { Runtime, RuntimeOptions } from "./runtime-types.ts";

/**
 * Builds a runtime over an already-migrated database (see `db/migrate.ts`), in named steps
 * (each in `runtime/`, in this order): open the stores, register the built-ins, join the
 * cluster, build the dispatcher, the agents, the stored surface and the services over it,
 * then the runtime object. Nothing is built out of this order.
 */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  // Callbacks built early that read what a later step builds (the stored surface, the runtime).
  const late: Late = { stored: null, runtime: null };
  const stores = await openStores(options);
  const registered = registerBuiltins(stores);
  const membership = await joinCluster(options, stores, registered);
  const dispatch = await buildDispatch(options, late, stores, registered, membership);
  const agents = await buildAgents(stores, registered, membership, dispatch);
  const loaded = await loadStoredSurface(late, stores, registered, membership, dispatch, agents);
  const services = buildServices(stores, registered, membership, loaded);
  const schedules = await buildSchedules(options, stores, registered, membership, dispatch);
  late.runtime = runtimeObject(stores, registered, membership, dispatch, agents, loaded, { ...services, ...schedules });
  if (dispatch.workers) await dispatch.cluster.start(dispatch.workers);
  return late.runtime;
}
