import { AgentService } from "../agent/agent-service.ts";
import { OrphanSweep } from "../cluster/orphan-sweep.ts";
import { Fencing } from "../cluster/fencing.ts";
import type { Stores } from "./open-stores.ts";
import type { Builtins } from "./register-builtins.ts";
import type { Membership } from "./join-cluster.ts";
import type { Dispatch } from "./build-dispatch.ts";

/** What {@link buildAgents} builds: the surface watchers, the agents and the runs recovered at start. */
export type Agents = Awaited<ReturnType<typeof buildAgents>>;

/**
 * Watches the handles for changes, builds the agents, and starts the orphan sweep (which
 * fails the runs of instances that are gone).
 */
export async function buildAgents(
  { db, bus, log, secrets, metrics, builtins, plugins }: Stores,
  { apps, surface }: Builtins,
  { runs, runLog, instances, instanceId, heartbeatMs, duties }: Membership,
  { dispatcher, interactions, cluster }: Dispatch,
) {
  const unwatch = apps.map((a) => a.onChange(() => surface.rebuild()));
  surface.onChange(() =>
    bus.publish("toolsChanged", { at: new Date().toISOString(), version: surface.snapshot().version }),
  );
  // Before StoredSurface: stored presets over an agent resolve their base at rebuild.
  const agents = new AgentService({
    db,
    surface,
    dispatcher,
    runs,
    runLog,
    bus,
    log,
    secrets,
    instanceId,
    builtins,
    apps,
    plugins,
    interactions,
    liveInstances: duties === "server" ? () => instances.liveIds() : undefined,
    observer: metrics,
  });
  // Tool and agent runs left RUNNING by an instance that is gone (it stopped beating, or
  // its process died on this host) were interrupted: at start, and at every heartbeat
  // after. A one-shot command takes no server duties; `tools run` only beats.
  const fenced = {
    runningIds: () => agents.runningIds(),
    fence: agents.fence.bind(agents),
    cancelHeld: agents.cancel.bind(agents),
  };
  const fencing = new Fencing({ db, instanceId, tools: dispatcher, agents: fenced, log });
  const orphans =
    duties === "none"
      ? null
      : new OrphanSweep({
          instances,
          runs: dispatcher,
          agents,
          bus,
          log,
          everyMs: heartbeatMs,
          sweeps: duties === "server",
          fence: (gone) => fencing.check(gone).then(() => {}),
        });
  const recovered = orphans ? await cluster.start(orphans) : [];
  return { unwatch, agents, recovered };
}
