import type { ToolDefinition } from "../../tools/definition.ts";
import type { SurfaceEntry } from "../surface-entry.ts";

/** The surface entry of a registered tool (also a run's live tool, `agent/tools-agent/live-tools.ts`). */
export function entryForTool(def: ToolDefinition): SurfaceEntry {
  return {
    name: def.name,
    label: def.label,
    description: def.description,
    origin: "TOOL",
    tier: def.tier,
    inputSchema: def.parameters,
    outputSchema: def.outputSchema,
    executionMode: def.executionMode,
    pauses: def.pauses,
    extensionStack: [],
    timeoutSeconds: def.timeoutSeconds,
    listed: def.apiTool,
    policyChain: [def.name],
    limits: def.limits,
    prepare: (input) => (def.parse ? def.parse(input) : { ok: true, value: input }),
    invoke: async (input, ctx) => def.execute(input as Record<string, unknown>, ctx),
    resume: def.resume ? async (state, answers, ctx) => def.resume!(state, answers, ctx) : undefined,
    promptSnippet: def.promptSnippet,
    promptGuidelines: def.promptGuidelines,
    source: def.source,
    module: def.module,
  };
}
