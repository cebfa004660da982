import type { Plugin } from "../plugins/plugin.ts";
import type { PluginCatalog } from "../plugins/plugin-catalog.ts";
import type { CheckpointProvider, StoreProvider } from "./storage/agent-storage.ts";
import type { LoopStrategy } from "./tools-agent/loop-types.ts";

/** The agent parts of a plugin, typed: what `plugins/plugin.ts` files without reading. */
export interface AgentPluginParts {
  strategy: LoopStrategy;
  checkpointProvider: CheckpointProvider;
  storeProvider: StoreProvider;
}

/** A plugin as its author writes it (docs/plugins.md), its agent parts typed. */
export type AgentPlugin = Plugin<AgentPluginParts>;

/** The catalog of the plugins' strategies and storage providers, typed for agents. */
export type AgentPluginCatalog = PluginCatalog<AgentPluginParts>;
