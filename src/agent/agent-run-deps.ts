import type { RunStore } from "../dispatch/run-store.ts";
import type { Surface } from "../registry/surface.ts";
import type { AgentPluginCatalog } from "./agent-plugin.ts";
import type { Secrets } from "../secrets/secrets.ts";
import type { ToolRunsPort } from "./agent-tools.ts";
import type { ProviderRegistry } from "./providers/registry.ts";
import type { ResponseFormatStore } from "./response-formats.ts";
import type { SkillStore } from "./skills.ts";
import type { ThreadStore } from "./threads.ts";
import type { InteractionsPort } from "./interactions-port.ts";

/** What one agent run is given (`ctx.services`): the runtime pieces it may use; none of them knows about GraphQL. */
export interface AgentRunDeps {
  surface: Surface;
  threads: ThreadStore;
  skills: SkillStore;
  /** Stored response formats, named by id (sub-agents' `responseFormatId`). */
  responseFormats: ResponseFormatStore;
  providers: ProviderRegistry;
  /** Tool runs (a parked call's run is read back on resume). */
  runs: RunStore;
  /** Awaiting a tool run's end (a resume's parked calls); an agent runs tools through `ctx.runTool` only. */
  toolRuns: ToolRunsPort;
  interactions: InteractionsPort | null;
  /** The runtime's secrets: a run scrubs what it stores and streams through a `secrets.scope()`. */
  secrets: Secrets;
  /** Loop strategies and the checkpoint / store providers by name (docs/plugins.md). */
  plugins: AgentPluginCatalog;
}
