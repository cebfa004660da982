import { manifestContext } from "../manifests/manifest-context.ts";
import { PresetService } from "../presets/preset-service.ts";
import { ManifestService } from "../manifests/manifest-service.ts";
import { ConnectorService } from "../connectors/connector-service.ts";
import { ConnectorRefresher } from "../connectors/connector-refresher.ts";
import type { Stores } from "./open-stores.ts";
import type { Builtins } from "./register-builtins.ts";
import type { Membership } from "./join-cluster.ts";
import type { Loaded } from "./load-stored-surface.ts";

/** What {@link buildServices} builds: the preset, connector and manifest services and the connector refresher. */
export type Services = ReturnType<typeof buildServices>;

/** Builds the services that write the stored surface, and starts the connector refresher on a server. */
export function buildServices(
  { config, db, bus, log, secrets }: Stores,
  { surface }: Builtins,
  { duties }: Membership,
  { stored, connectorStore, kinds, connections, extensionOf, allowList, load }: Loaded,
) {
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
  // Only an instance that can park stores what an upstream's list_changed relists: one that cannot (`tai mcp`, the CLI)
  // connects without advertising elicitation, so an upstream may offer it fewer tools than the servers serve
  // (docs/connectors.md §7); the servers hear the change on their own connections, and poll.
  connections.onToolsChanged = (name) => {
    if (duties === "server") refresher.listChanged(name);
    else log.info("an upstream's tool list changed; left to the server instances to relist", { connector: name });
  };
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
  return { presets, connectors, refresher, manifests };
}
