import { InstanceRegistry } from "../cluster/instances.ts";
import { RunStore } from "../dispatch/run-store.ts";
import { LogWriter } from "../runlog/log-writer.ts";
import { OrderedRunEvents } from "../runlog/ordered-feed.ts";
import type { RuntimeOptions } from "../runtime-types.ts";
import { startTracing } from "../ops/tracing.ts";
import type { Stores } from "./open-stores.ts";
import type { Builtins } from "./register-builtins.ts";

/** What {@link joinCluster} builds: the run log, the run store and feed, the instance registry and tracing. */
export type Membership = Awaited<ReturnType<typeof joinCluster>>;

/**
 * Opens the run log and registers this process as an instance (unless it takes no duties),
 * with tracing started under its id.
 */
export async function joinCluster(
  options: RuntimeOptions,
  { config, db, bus, log, secrets, driver, metrics }: Stores,
  { spans }: Builtins,
) {
  const heartbeatMs = (options.heartbeatSeconds ?? config.heartbeatSeconds) * 1000;
  const instances = new InstanceRegistry(
    db,
    heartbeatMs,
    options.heartbeatSeconds === undefined ? config.deadAfterSeconds * 1000 : heartbeatMs * 3,
  );
  const instanceId = instances.id;
  const runLog = new LogWriter(driver, secrets, (size, seconds) => metrics.logBatch(size, seconds), instanceId);
  const runs = new RunStore(db, runLog);
  const runFeed = new OrderedRunEvents(bus, runs, log);
  const tracing = await startTracing(
    { url: config.otlpTracesUrl, exporter: options.traceExporter, instanceId },
    secrets,
  );
  spans.tracer = tracing?.monitor ?? null;
  const duties = options.duties ?? "server";
  if (duties !== "none") await instances.register();
  return { runLog, runs, runFeed, heartbeatMs, instances, instanceId, tracing, duties };
}
