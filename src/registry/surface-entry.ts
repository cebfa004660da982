import type { Limits } from "../limits/limits.ts";
import type { Tier } from "../auth/roles.ts";
import type { Issue } from "../errors.ts";
import type { ExecutionMode, ToolContext } from "../tools/definition.ts";
import type { JsonSchema } from "../tools/json-schema.ts";

export type ToolOrigin = "TOOL" | "PRESET" | "BRANCH" | "AGENT" | "CONNECTOR";

/**
 * One callable name: a registered tool, a preset, a bound branch, an agent or a
 * connector's upstream tool (docs/connectors.md). The
 * registry only describes entries; `invoke` is called by the chokepoint alone.
 */
export interface SurfaceEntry {
  name: string;
  label?: string;
  description: string;
  origin: ToolOrigin;
  tier: Tier;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  executionMode: ExecutionMode;
  pauses: boolean;
  /** PRESET and BRANCH: the name this entry builds on. */
  baseTool?: string;
  /** BRANCH: extension names, innermost first. */
  extensionStack: string[];
  /** PRESET: the baked constants as stored (markers, not values). */
  fixedKwargs?: Record<string, unknown>;
  /** PRESET: input keys a caller may not pass (baked by this preset or its ancestors). */
  bakedKeys?: string[];
  /** AGENT: fields a preset may bake; "all" when the agent is specRunnable. */
  bakeableFields?: string[] | "all";
  /** Per-attempt timeout. */
  timeoutSeconds: number;
  /** false: resolvable as a base, not listed or dispatchable (curation). */
  listed: boolean;
  /**
   * Names whose retry declaration may apply, nearest first: a preset lists itself and
   * its ancestors down to the tool; a tool or branch lists only itself.
   */
  policyChain: string[];
  /** Limits declared on exactly this name (docs/flow-control.md §2); a run counts against each along its chain. */
  limits?: Limits;
  /** Converts validated JSON input for the body (zod parsing, baked-kwarg merging). */
  prepare(input: Record<string, unknown>): { ok: true; value: unknown } | { ok: false; issues: Issue[] };
  /**
   * Continues a parked run once every interaction is answered; `answers` maps interaction
   * id → answer. Absent: the run's output is the answer itself.
   */
  resume?(state: unknown, answers: Record<string, unknown>, ctx: ToolContext): Promise<unknown>;
  /** Runs the body. Contract: only `dispatch/dispatcher.ts` calls this. */
  invoke(input: unknown, ctx: ToolContext): Promise<unknown>;
  /** TOOL and BRANCH: the line the tools agent lists for it in its system message. */
  promptSnippet?: string;
  /** TOOL and BRANCH: rules the tools agent adds to its system message when it is in a run. */
  promptGuidelines?: readonly string[];
  /** TOOL: the extension that registered it; absent for a tool registered directly. */
  source?: string;
  /** CONNECTOR: the connector's name. */
  connector?: string;
  /** CONNECTOR: the upstream's annotations, as sent (untrusted: they only proposed the tier). */
  annotations?: Record<string, unknown>;
  /** Where it came from (module path, "demo", "preset", "manifest"). */
  module: string;
}
