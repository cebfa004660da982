import type { AgentClass } from "./agent.ts";
import type { AgentPluginParts } from "./agent-plugin.ts";
import type { LoopStrategy } from "./tools-agent/loop-types.ts";

/** The types an app handle registers for agents (`app.ts`); `registry/registry.ts` files them opaquely. */
export interface AgentRegistryTypes {
  agent: AgentClass;
  strategy: LoopStrategy;
  plugin: AgentPluginParts;
}
