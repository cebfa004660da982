import { isRedacted } from "../../auth/tiers.ts";
import type { Caller } from "../../auth/roles.ts";
import type { Dispatcher, RunOutcome } from "../../dispatch/run-tool.ts";
import type { Issue } from "../../errors.ts";
import type { SurfaceEntry } from "../../registry/surface-entry.ts";
import { entryForTool, type Surface } from "../../registry/surface.ts";
import type { ToolDefinition } from "../../tools/definition.ts";
import type { ToolSpec } from "./toolbox.ts";

/**
 * A run's live tools (docs/run-options.md §4): in-process `defineTool` definitions,
 * each an entry the chokepoint runs for this run only — tier check, input validation,
 * a stored run record and its events, exactly as for a surface tool. A live tool cannot
 * pause and runs one attempt (no retry declaration reaches it).
 */
export interface LiveTools {
  specs: ToolSpec[];
  entries: Map<string, SurfaceEntry>;
}

/** The live tools of a run; a name the surface already has is an issue (it would shadow it). */
export function liveTools(surface: Surface, defs: ToolDefinition[], issues: Issue[]): LiveTools {
  const entries = new Map<string, SurfaceEntry>();
  const specs: ToolSpec[] = [];
  defs.forEach((def, i) => {
    if (surface.resolve(def.name)) return void issues.push({ path: `/tools/${i}`, message: `the live tool "${def.name}" has the name of a surface tool; give it another name` });
    if (def.pauses) return void issues.push({ path: `/tools/${i}`, message: `the live tool "${def.name}" declares pauses; a live tool cannot pause` });
    const entry: SurfaceEntry = { ...entryForTool(def), listed: false, policyChain: [], module: "live" };
    entries.set(def.name, entry);
    specs.push({ kind: "surface", name: def.name, description: def.description, inputSchema: def.parameters, executionMode: def.executionMode, redacted: isRedacted(def.tier) });
  });
  return { specs, entries };
}

/** Runs a live tool through the chokepoint as the run's caller (door "agent", child of the run). */
export function runLive(dispatcher: Dispatcher, entry: SurfaceEntry, input: unknown, caller: Caller, runId: string): Promise<RunOutcome> {
  return dispatcher.runDetailed({ tool: entry.name, input, caller, door: "agent", parentRunId: runId, live: entry });
}
