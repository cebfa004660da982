import { App, app as sharedApp } from "./app.ts";
import { KeyStore } from "./auth/keys.ts";
import { openDb } from "./db/client.ts";
import { expiringStore } from "./db/expiring-store.ts";
import { InstanceRegistry } from "./cluster/instances.ts";
import { registerDemoTools } from "./demo/demo-tools.ts";
import { Dispatcher } from "./dispatch/dispatcher.ts";
import { RunStore } from "./dispatch/run-store.ts";
import { LogWriter } from "./runlog/log-writer.ts";
import { OrderedRunEvents } from "./runlog/ordered-feed.ts";
import { runtimeBus } from "./runtime-topics.ts";
import { createLogger } from "./log.ts";
import { scrubbingLogger } from "./secrets/scrubbing-logger.ts";
import type { Runtime, RuntimeOptions } from "./runtime-types.ts";
import { Secrets } from "./secrets/secrets.ts";
import { PluginCatalog } from "./plugins/plugin-catalog.ts";
import { BUILTIN_STRATEGIES } from "./agent/strategies/strategy.ts";
import { configuredCredentials } from "./secrets/credentials.ts";
import { scrubbingWrites } from "./secrets/scrub-writes.ts";
import { learnStoredMarkers } from "./secrets/stored-markers.ts";
import { outageLog } from "./events/outage-log.ts";
import { failureLog } from "./failure-log.ts";
import { loadModules } from "./modules/load-modules.ts";
import { allowedModules, manifestContext } from "./manifests/manifest-context.ts";
import { Surface } from "./registry/surface.ts";
import { StoredSurface } from "./composition/stored-surface.ts";
import { PresetService } from "./presets/preset-service.ts";
import { ManifestService } from "./manifests/manifest-service.ts";
import { InteractionStore } from "./interactions/interaction-store.ts";
import { InteractionService } from "./interactions/interaction-service.ts";
import { SpanStore } from "./extensions/builtin/spans.ts";
import { registerMonitor } from "./extensions/builtin/monitor.ts";
import { registerAskExternal } from "./extensions/builtin/ask-external.ts";
import { registerWorkerBackend } from "./extensions/builtin/worker-backend.ts";
import { extensionCatalog } from "./extensions/extension-catalog.ts";
import { AgentService } from "./agent/agent-service.ts";
import { OrphanSweep } from "./cluster/orphan-sweep.ts";
import { Fencing } from "./cluster/fencing.ts";
import { Duties } from "./cluster/duty.ts";
import { interactionExpiry } from "./cluster/interaction-expiry.ts";
import { keyValueSweep } from "./cluster/key-value-sweep.ts";
import { Metrics } from "./ops/metrics.ts";
import { metricSources } from "./ops/metric-sources.ts";
import { startTracing } from "./ops/tracing.ts";
import { ConnectionManager } from "./connectors/connections.ts";
import { ConnectorStore } from "./connectors/connector-store.ts";
import { ConnectorSurface } from "./connectors/connector-entries.ts";
import { ConnectorService } from "./connectors/connector-service.ts";
import { KindCatalog } from "./connectors/kind-catalog.ts";
import { ConnectorRefresher } from "./connectors/connector-refresher.ts";

export type { Runtime, RuntimeOptions } from "./runtime-types.ts";

/** Builds a runtime over an already-migrated database (see `db/migrate.ts`). */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { config } = options;
  // The secrets are known before anything is logged, stored or served: the configured
  // credentials now, the stored markers' values when the stored surface loads below.
  const app = options.app ?? sharedApp;
  const builtins = new App();
  // The one plugin catalog: `!ENV` values (the plugins' config providers, then the process
  // environment), loop strategies, agent storage and connector kinds, of every handle in order.
  const plugins = new PluginCatalog(() => [...new Set([builtins, sharedApp, app])], process.env, BUILTIN_STRATEGIES);
  const secrets = new Secrets({
    deny: config.envDeny,
    lookup: (name) => plugins.configValue(name),
    redactCacheSize: config.redactCacheSize,
  });
  for (const c of configuredCredentials(config)) secrets.add(c);
  const log = scrubbingLogger(options.log ?? createLogger({ service: "tai42" }), secrets);
  // Modules register on the shared handle; a runtime built with its own handle (tests)
  // still sees what modules register.
  if (options.loadModules ?? true) await loadModules(sharedApp, config.modules);
  const opened = await openDb(config.databaseUrl, { pool: config.dbPool });
  const { provider } = opened;
  const db = scrubbingWrites(opened.db, secrets);
  await learnStoredMarkers(db, secrets);
  const redisOutage = outageLog(log, "redis");
  const metrics = new Metrics();
  const onRedisError = (e: Error) => {
    metrics.redisError();
    redisOutage.error(e);
  };
  const bus = runtimeBus({
    redisUrl: config.redisUrl,
    prefix: config.redisPrefix,
    onError: onRedisError,
    onReady: redisOutage.recovered,
    onLagging: (topic) => metrics.laggingClosed(topic),
  });
  const spans = new SpanStore(db, bus, secrets);
  builtins.currentModule = "builtin";
  registerMonitor(builtins, spans);
  registerAskExternal(builtins);
  registerWorkerBackend(builtins);
  builtins.currentModule = "inline";
  if (config.demo) registerDemoTools(builtins, db);
  const apps = [...new Set([builtins, sharedApp, app])];
  const surface = new Surface(apps);
  const runLog = new LogWriter(opened.driver, secrets, (size, seconds) => metrics.logBatch(size, seconds));
  const runs = new RunStore(db, runLog);
  const runFeed = new OrderedRunEvents(bus, runs, log);
  const heartbeatMs = (options.heartbeatSeconds ?? config.heartbeatSeconds) * 1000;
  const instances = new InstanceRegistry(
    db,
    heartbeatMs,
    options.heartbeatSeconds === undefined ? config.deadAfterSeconds * 1000 : heartbeatMs * 3,
  );
  const instanceId = instances.id;
  const tracing = await startTracing(
    { url: config.otlpTracesUrl, exporter: options.traceExporter, instanceId },
    secrets,
  );
  spans.tracer = tracing?.monitor ?? null;
  const duties = options.duties ?? "server";
  if (duties !== "none") await instances.register();

  let storedSurface: StoredSurface | null = null;
  const interactionStore = new InteractionStore(db, (token) => `${runtime.publicUrl}/callbacks/${token}`, bus);
  const dispatcher = new Dispatcher({
    surface,
    runs,
    bus,
    log,
    secrets,
    instanceId,
    interactions: interactionStore,
    store: expiringStore(db),
    // A name written on another instance a moment ago is looked up again before NOT_FOUND.
    // (`stored` is built below, once the dispatcher exists: until then there is nothing to refresh.)
    refresh: async () => (storedSurface ? storedSurface.sync.refreshIfStale() : false),
    observer: metrics,
    tracer: tracing?.runs,
  });
  const interactions = new InteractionService(interactionStore, runs, dispatcher, log);
  // The periodic duties fail every tick while the database is out: a few lines count them.
  const dutyFailures = failureLog(log);
  const cluster = new Duties();
  if (duties === "server") {
    await cluster.start(interactionExpiry(interactions, dutyFailures, options.sweepMs ?? 1000));
    await cluster.start(keyValueSweep(db, dutyFailures, options.storeSweepMs ?? 60_000));
  }
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
  const fencing = new Fencing({ db, tools: dispatcher, agents, log });
  const orphans =
    duties === "none"
      ? null
      : new OrphanSweep({
          instances,
          runs,
          agents,
          bus,
          log,
          everyMs: heartbeatMs,
          sweeps: duties === "server",
          fence: (gone) => fencing.check(gone).then(() => {}),
        });
  const recovered = orphans ? await cluster.start(orphans) : [];
  const keys = new KeyStore(db, bus);
  const catalog = extensionCatalog(apps);
  const extensionOf = catalog.extension;
  // Manifests may import only allow-listed modules (docs/security-model.md §6), also when a
  // stored manifest written before the rule is loaded.
  const allowList = { modules: config.modules, extensionsDir: config.extensionsDir };
  const load = (modules: string[]) => loadModules(sharedApp, modules);
  const connectorStore = new ConnectorStore(db);
  const kinds = new KindCatalog(plugins);
  const connections = new ConnectionManager({
    kinds,
    secrets,
    log,
    store: expiringStore(db),
    bus,
    instanceId,
    canPark: duties === "server",
  });
  const connectorSurface = new ConnectorSurface(connectorStore, connections, log);
  const stored: StoredSurface = new StoredSurface(
    db,
    surface,
    bus,
    instanceId,
    log,
    secrets,
    extensionOf,
    allowedModules({ allowList, loadModules: load }),
    [connectorSurface],
  );
  storedSurface = stored;
  await stored.load();
  // Converges with writes whose bus message was lost, and with the CLI's (docs/deploy.md).
  // Long-lived run processes (`tai mcp`, usually without Redis) converge like servers do.
  if (duties !== "none") stored.sync.start(config.syncSeconds * 1000);
  metrics.bind(
    metricSources({
      surface,
      dispatcher,
      agents,
      bus,
      driver: opened.driver,
      instances: duties === "none" ? null : instances,
      stored,
      connectors: { names: () => connectorSurface.stored().map((c) => c.name), connections },
    }),
  );
  const changed = () => stored.changed();
  const presets = new PresetService(db, surface, changed, secrets.deny, stored);
  const connectors = new ConnectorService({
    store: connectorStore,
    kinds,
    connections,
    surface,
    envDeny: secrets.deny,
    changed,
    publish: (change) => bus.publish("connectorChanged", change),
    log,
    connectBoundMs: config.connectorConnectSeconds * 1000,
  });
  const refresher = new ConnectorRefresher(
    (name, cause) => connectors.relist(name, cause),
    async () => (await connectorStore.all()).map((c) => c.name),
    log,
  );
  connections.onToolsChanged = (name) => refresher.listChanged(name);
  if (duties === "server") refresher.start(config.connectorRefreshSeconds * 1000);
  const manifests = new ManifestService(
    db,
    manifestContext({
      db,
      surface,
      extension: extensionOf,
      secrets,
      modules: config.modules,
      allowList,
      loadModules: load,
    }),
    changed,
  );

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
    runs,
    runFeed,
    presets,
    manifests,
    stored,
    dispatcher,
    secrets,
    instanceId,
    log,
    recovered,
    metrics,
    connectors,
    connections,
    drain() {
      draining ??= (async () => {
        // One deadline for both: at it, agent runs and tool runs are cancelled together
        // (an agent's tool calls carry its signal, and are admitted until the agents are done).
        const grace = config.shutdownGraceSeconds * 1000;
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
      await connections.close();
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
