import type { Caller } from "../auth/roles.ts";
import type { RunRecord } from "../dispatch/run-record.ts";
import type { RunStore } from "../dispatch/run-store.ts";
import type { InteractionRecord } from "../interactions/park.ts";
import type { Surface } from "../registry/surface.ts";
import type { AgentPluginCatalog } from "./agent-plugin.ts";
import type { Secrets } from "../secrets/secrets.ts";
import type { ToolRunsPort } from "./agent-tools.ts";
import type { ProviderRegistry } from "./providers/registry.ts";
import type { ResponseFormatStore } from "./response-formats.ts";
import type { SkillStore } from "./skills.ts";
import type { ThreadStore } from "./threads.ts";

/** What agents need from the interactions layer (issue 4): reading and answering parks. */
export interface InteractionsPort {
  forRun(runId: string): Promise<InteractionRecord[]>;
  /** One interaction, whoever may see it. */
  get(id: string): Promise<InteractionRecord | null>;
  /** Validates and stores an answer, then resumes the parked run. Throws ApiError on refusal. */
  answer(id: string, answer: unknown, caller: Caller): Promise<RunRecord>;
  /**
   * Validates every answer, then stores all or none and resumes the parked runs; refusals name paths under `at`. Throws
   * ApiError on refusal.
   */
  answerAll(answers: Record<string, unknown>, caller: Caller, at: string): Promise<void>;
}

/** The runtime pieces an agent may use; none of them knows about GraphQL. */
export interface AgentServices {
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
