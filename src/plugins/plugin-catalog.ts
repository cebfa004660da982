import type { ConnectorKind } from "../connectors/connector-kind.ts";
import { envConfigProvider, lookupConfig, type ConfigProvider } from "./config-provider.ts";
import type { Plugin, PluginParts } from "./plugin.ts";

/** The default loop strategy's name: the tools-agent loop of docs/agent-stream.md §5. */
export const DEFAULT_STRATEGY = "tools";

/** The name of the default storage providers: the platform's database. */
export const DATABASE_PROVIDER = "database";

/** What the catalog reads of an app handle: its plugins and the strategies it registered on their own. */
export interface PluginSource<P extends PluginParts = PluginParts> {
  readonly plugins: ReadonlyMap<string, Plugin<P>>;
  readonly strategies: ReadonlyMap<string, P["strategy"]>;
}

/** A name a run option gave that nothing registered; `known` lists what is. */
export class UnknownNameError extends Error {
  constructor(
    readonly option: "strategy" | "checkpointProvider" | "storeProvider",
    readonly requested: string,
    readonly known: string[],
  ) {
    super(`unknown ${option} "${requested}" (known: ${known.join(", ")})`);
    this.name = "UnknownNameError";
  }
}

/**
 * What the plugins of a runtime's app handles register, read at use time (a plugin
 * registered after start counts from then on). Handles are read in order — the runtime's
 * built-ins, the shared handle, the runtime's own — and a later handle's name overrides an
 * earlier one's. Domain code: no GraphQL.
 */
export class PluginCatalog<P extends PluginParts = PluginParts> {
  /** `builtinStrategies`: the strategies every runtime knows, before any handle's (`agent/strategies/strategy.ts`). */
  constructor(
    private readonly apps: () => readonly PluginSource<P>[],
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly builtinStrategies: ReadonlyMap<string, P["strategy"]> = new Map(),
  ) {}

  strategies(): Map<string, P["strategy"]> {
    return new Map([
      ...this.builtinStrategies,
      ...this.apps().flatMap((a) => [
        ...a.strategies,
        ...[...a.plugins.values()].flatMap((p) => Object.entries(p.strategies ?? {})),
      ]),
    ]);
  }

  checkpointProviders(): Map<string, P["checkpointProvider"]> {
    return new Map(
      this.apps().flatMap((a) => [...a.plugins.values()].flatMap((p) => Object.entries(p.checkpointProviders ?? {}))),
    );
  }

  storeProviders(): Map<string, P["storeProvider"]> {
    return new Map(
      this.apps().flatMap((a) => [...a.plugins.values()].flatMap((p) => Object.entries(p.storeProviders ?? {}))),
    );
  }

  /** The plugins' connector kinds by name (the built-ins are added by `connectors/kind-catalog.ts`). */
  connectorKinds(): Map<string, ConnectorKind> {
    return new Map(
      this.apps().flatMap((a) =>
        [...a.plugins.values()].flatMap((p) => Object.entries(p.connectors ?? {}) as Array<[string, ConnectorKind]>),
      ),
    );
  }

  /** The named strategy, "tools" when unset; throws {@link UnknownNameError}. */
  strategy(name: string | undefined): P["strategy"] {
    return pick(this.strategies(), "strategy", name ?? DEFAULT_STRATEGY);
  }

  /** The named checkpoint provider, "database" when unset; throws {@link UnknownNameError}. */
  checkpointer(name: string | undefined): P["checkpointProvider"] {
    return pick(this.checkpointProviders(), "checkpointProvider", name ?? DATABASE_PROVIDER);
  }

  /** The named store provider, "database" when unset; throws {@link UnknownNameError}. */
  store(name: string | undefined): P["storeProvider"] {
    return pick(this.storeProviders(), "storeProvider", name ?? DATABASE_PROVIDER);
  }

  /** The config providers in the order `!ENV` consults them: the plugins', then the process environment. */
  configProviders(): ConfigProvider[] {
    return [
      ...this.apps().flatMap((a) =>
        [...a.plugins.values()].flatMap((p) => (p.configProvider ? [p.configProvider] : [])),
      ),
      envConfigProvider(this.env),
    ];
  }

  /** The value `!ENV name` resolves to, or undefined. */
  configValue(name: string): string | undefined {
    return lookupConfig(this.configProviders(), name);
  }
}

function pick<T>(map: Map<string, T>, option: UnknownNameError["option"], name: string): T {
  const found = map.get(name);
  if (found === undefined) throw new UnknownNameError(option, name, [...map.keys()].sort());
  return found;
}
