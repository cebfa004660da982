import { App, app as sharedApp } from "../app.ts";
import { openDb } from "../db/client.ts";
import { runtimeBus } from "../runtime-topics.ts";
import { createLogger } from "../log.ts";
import { scrubbingLogger } from "../secrets/scrubbing-logger.ts";
import type { RuntimeOptions } from "../runtime-types.ts";
import { Secrets } from "../secrets/secrets.ts";
import { PluginCatalog } from "../plugins/plugin-catalog.ts";
import { BUILTIN_STRATEGIES } from "../agent/strategies/strategy.ts";
import { configuredCredentials } from "../secrets/credentials.ts";
import { scrubbingWrites } from "../secrets/scrub-writes.ts";
import { learnStoredMarkers } from "../secrets/stored-markers.ts";
import { outageLog } from "../events/outage-log.ts";
import { loadModules } from "../modules/load-modules.ts";
import { Metrics } from "../ops/metrics.ts";

/** What {@link openStores} opens: the secrets, the logger, the database, the metrics and the bus. */
export type Stores = Awaited<ReturnType<typeof openStores>>;

/**
 * The first step of `createRuntime`: knows the secrets, loads the modules, opens the database
 * (learning its stored markers) and the bus.
 */
export async function openStores(options: RuntimeOptions) {
  const { config } = options;
  // The secrets are known before anything is logged, stored or served: the configured
  // credentials now, the stored markers' values when the stored surface loads (`loadStoredSurface`).
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
  return { config, app, builtins, plugins, secrets, log, driver: opened.driver, provider, db, metrics, bus };
}
