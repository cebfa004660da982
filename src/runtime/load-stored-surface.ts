import { app as sharedApp } from "../app.ts";
import { KeyStore } from "../auth/keys.ts";
import { expiringStore } from "../db/expiring-store.ts";
import { loadModules } from "../modules/load-modules.ts";
import { allowedModules } from "../manifests/manifest-context.ts";
import { StoredSurface } from "../composition/stored-surface.ts";
import { extensionCatalog } from "../extensions/extension-catalog.ts";
import { metricSources } from "../ops/metric-sources.ts";
import { ConnectionManager } from "../connectors/connections.ts";
import { ConnectorStore } from "../connectors/connector-store.ts";
import { ConnectorSurface } from "../connectors/connector-entries.ts";
import { KindCatalog } from "../connectors/kind-catalog.ts";
import type { Late } from "./late.ts";
import type { Stores } from "./open-stores.ts";
import type { Builtins } from "./register-builtins.ts";
import type { Membership } from "./join-cluster.ts";
import type { Dispatch } from "./build-dispatch.ts";
import type { Agents } from "./build-agents.ts";
import { versionReader } from "../registry/surface-version.ts";

/** What {@link loadStoredSurface} builds: the keys, the extension catalog, the connections and the stored surface. */
export type Loaded = Awaited<ReturnType<typeof loadStoredSurface>>;

/**
 * Builds the connections and the stored surface over them, loads it (and keeps it in sync
 * unless the process takes no duties), then binds the metrics to their sources.
 */
export async function loadStoredSurface(
  late: Late,
  { config, db, bus, log, secrets, metrics, plugins, driver }: Stores,
  { apps, surface }: Builtins,
  { instances, instanceId, duties }: Membership,
  { dispatcher, flow, admission }: Dispatch,
  { agents }: Agents,
) {
  const keys = new KeyStore(db, bus, log);
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
    versionReader(driver),
  );
  late.stored = stored;
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
      driver,
      instances: duties === "none" ? null : instances,
      stored,
      connectors: { names: () => connectorSurface.stored().map((c) => c.name), connections },
      limits: {
        limited: () => flow.limited(),
        waiting: () => flow.slots.waiting(),
        openBreakers: () => flow.openBreakers(),
        degraded: () => flow.backend.degraded,
        shed: () => admission.refused,
        open: () => admission.inFlight,
      },
    }),
  );
  return { keys, catalog, extensionOf, allowList, load, connectorStore, kinds, connections, stored };
}
