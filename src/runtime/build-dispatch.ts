import { callerNow } from "../auth/stored-caller.ts";
import { expiringStore } from "../db/expiring-store.ts";
import { Dispatcher } from "../dispatch/dispatcher.ts";
import type { RuntimeOptions } from "../runtime-types.ts";
import { failureLog } from "../failure-log.ts";
import { InteractionStore } from "../interactions/interaction-store.ts";
import { InteractionService } from "../interactions/interaction-service.ts";
import { Duties } from "../cluster/duty.ts";
import { AdmissionControl } from "../limits/admission-control.ts";
import { FlowControl } from "../limits/flow-control.ts";
import { DeploymentLimits } from "../limits/open-limits.ts";
import { interactionExpiry } from "../cluster/interaction-expiry.ts";
import { keyValueSweep } from "../cluster/key-value-sweep.ts";
import type { Late } from "./late.ts";
import { RunTransitions } from "../dispatch/run-transitions.ts";
import { QueueWorkers } from "../queue/queue-workers.ts";
import { openQueue } from "../queue/open-queue.ts";
import type { Stores } from "./open-stores.ts";
import type { Builtins } from "./register-builtins.ts";
import type { Membership } from "./join-cluster.ts";

/** What {@link buildDispatch} builds: the dispatcher, the interactions and the duties started so far. */
export type Dispatch = Awaited<ReturnType<typeof buildDispatch>>;

/** Builds the dispatch chokepoint and the interactions, then starts the server's periodic sweeps. */
export async function buildDispatch(
  options: RuntimeOptions,
  late: Late,
  { config, db, bus, log, secrets, metrics, driver }: Stores,
  { surface }: Builtins,
  { runs, instanceId, tracing, duties, instances }: Membership,
) {
  const limits = new DeploymentLimits({
    redisUrl: config.redisUrl,
    redisPrefix: config.redisPrefix,
    pool: driver.kind === "postgres" ? driver.pool : undefined,
    log,
    instances: () => instances.liveCount,
  });
  const flow = new FlowControl(limits, (name) => bus.publish("breakerOpened", { name }));
  bus.listen("breakerOpened", ({ name }) => flow.heardOpened(name));
  // The database's wait: the run log's oldest write not committed, or the surface's version check under way.
  const dbWait = () => Math.max(runs.stalledMs(), late.stored?.sync.stalledMs() ?? 0);
  const admission = new AdmissionControl(config.maxInFlight, config.maxDbWaitSeconds * 1000, dbWait);
  const interactionStore = new InteractionStore(db, (token) => `${late.runtime!.publicUrl}/callbacks/${token}`, bus);
  const moves = new RunTransitions(db, runs);
  const queue = openQueue(config, moves, log);
  const dispatcher = new Dispatcher({
    surface,
    runs,
    moves,
    queue,
    bus,
    log,
    secrets,
    instanceId,
    interactions: interactionStore,
    store: expiringStore(db),
    callerNow: (recorded) => callerNow(db, recorded),
    // Every lookup waits for a version check begun after it: a write answered on another instance is seen.
    // (`stored` is built by `loadStoredSurface`, once the dispatcher exists: until then there is nothing to refresh.)
    refresh: async () => (late.stored ? late.stored.sync.refreshIfStale() : false),
    observer: metrics,
    tracer: tracing?.runs,
    flow,
    admission,
  });
  const interactions = new InteractionService(interactionStore, runs, dispatcher, log);
  // The periodic duties fail every tick while the database is out: a few lines count them.
  const dutyFailures = failureLog(log);
  const cluster = new Duties();
  if (duties === "server") {
    await cluster.start(interactionExpiry(interactions, dutyFailures, options.sweepMs ?? 1000));
    await cluster.start(keyValueSweep(db, dutyFailures, options.storeSweepMs ?? 60_000));
  }
  // Started last (`createRuntime`), once the stored surface is loaded: a queued run resolves its entry on it.
  const workers =
    duties === "server"
      ? new QueueWorkers({
          queue,
          work: (id) => dispatcher.executeQueued(id),
          concurrency: config.queueConcurrency,
          // The embedded queue reads the waiting runs itself; pg-boss is sent again what it may have missed.
          ...(queue.engine === "embedded" ? {} : { waitingSince: (before: Date) => moves.queuedIds(1000, before) }),
          log,
        })
      : null;
  return { dispatcher, interactions, cluster, queue, workers, flow, admission, limits };
}
