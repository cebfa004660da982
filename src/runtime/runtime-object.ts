import { TokenVerifier } from "../auth/token-verifier.ts";
import type { Runtime } from "../runtime-types.ts";
import type { Stores } from "./open-stores.ts";
import type { Builtins } from "./register-builtins.ts";
import type { Membership } from "./join-cluster.ts";
import type { Dispatch } from "./build-dispatch.ts";
import type { Agents } from "./build-agents.ts";
import type { Loaded } from "./load-stored-surface.ts";
import type { Services } from "./build-services.ts";
import type { BuiltSchedules } from "./build-schedules.ts";

/** The last step of `createRuntime`: the object every door holds, with its drain and its close (in order). */
export function runtimeObject(
  s: Stores,
  { spans, surface }: Builtins,
  { runs, runFeed, runLog, instances, instanceId, tracing, duties }: Membership,
  { dispatcher, interactions, cluster, queue, limits, flow }: Dispatch,
  { unwatch, agents, recovered }: Agents,
  { keys, catalog, extensionOf, connections, stored }: Loaded,
  { presets, manifests, connectors, refresher, schedules, ticks }: Services & BuiltSchedules,
): Runtime {
  const { config, db, provider, app, builtins, bus, secrets, log, metrics } = s;
  let closed = false;
  let draining: Promise<void> | null = null;
  const runtime: Runtime = {
    publicUrl:
      config.publicUrl ?? `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.port}`,
    interactions,
    agents,
    spans,
    extension: extensionOf,
    extensions: catalog.extensions,
    config,
    db,
    provider,
    app,
    builtins,
    surface,
    bus,
    keys,
    tokens: config.identity ? new TokenVerifier(config.identity) : null,
    runs,
    runFeed,
    presets,
    manifests,
    stored,
    dispatcher,
    flow,
    secrets,
    instanceId,
    log,
    recovered,
    metrics,
    connectors,
    schedules,
    connections,
    drain() {
      draining ??= (async () => {
        // One deadline for both: at it, agent runs and tool runs are cancelled together
        // (an agent's tool calls carry its signal, and are admitted until the agents are done).
        const grace = config.shutdownGraceSeconds * 1000;
        // No more ticks won here, first: a tick this instance advanced and could not dispatch would be lost to every
        // instance (docs/run-lifecycle.md §11.7). A pass under way finishes before the dispatcher closes.
        await ticks?.stop();
        // No more queue work here: what is QUEUED waits for another instance (or this one's next start).
        await queue.pause().catch(() => {});
        const agentsDone = agents.close(grace);
        await Promise.all([agentsDone, dispatcher.drain(grace, agentsDone)]);
      })();
      return draining;
    },
    async close() {
      if (closed) return;
      closed = true;
      await cluster.stop();
      unwatch.forEach((u) => u());
      stored.close();
      refresher.close();
      await runtime.drain();
      await queue.close().catch((e: Error) => log.warn("closing the run queue failed", { error: e.message }));
      await Promise.all([connections.close(), keys.settled()]);
      await limits.close().catch(() => {});
      await runLog.idle();
      await tracing?.shutdown().catch((e: Error) => log.warn("flushing traces failed", { error: e.message }));
      if (duties !== "none") await instances.leave();
      runFeed.close();
      await bus.close();
      await db.$disconnect();
    },
  };
  return runtime;
}
