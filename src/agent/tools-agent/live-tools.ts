import { isRedacted } from "../../auth/tiers.ts";
import type { Issue } from "../../errors.ts";
import type { SurfaceEntry } from "../../registry/surface-entry.ts";
import { entryForTool } from "../../registry/entries/tool-entry.ts";
import type { Surface } from "../../registry/surface.ts";
import type { ToolDefinition } from "../../tools/definition.ts";
import type { CallEnv, ToolSpec } from "./loop-types.ts";

/**
 * Live tools (docs/run-options.md §4, docs/agent-stream.md §9.3): in-process `defineTool`
 * definitions given to a run or to one of its sub-agents, each an entry the chokepoint
 * runs for that scope only — tier check, input validation, a stored run record and its
 * events, exactly as for a surface tool. A live tool cannot pause and runs one attempt
 * (no retry declaration reaches it).
 */
export interface LiveTools {
  specs: ToolSpec[];
  entries: Map<string, SurfaceEntry>;
}

/**
 * The live tools of a run (`path` "/tools") or of a sub-agent (`/subagents/<i>/tools`);
 * a name the surface already has (it would shadow it) and a pausing tool are issues.
 */
export function liveTools(surface: Surface, defs: ToolDefinition[], issues: Issue[], path = "/tools"): LiveTools {
  const entries = new Map<string, SurfaceEntry>();
  const specs: ToolSpec[] = [];
  defs.forEach((def, i) => {
    if (surface.resolve(def.name))
      return void issues.push({
        path: `${path}/${i}`,
        message: `the live tool "${def.name}" has the name of a surface tool; give it another name`,
      });
    if (def.pauses)
      return void issues.push({
        path: `${path}/${i}`,
        message: `the live tool "${def.name}" declares pauses; a live tool cannot pause`,
      });
    const entry: SurfaceEntry = { ...entryForTool(def), listed: false, policyChain: [], module: "live" };
    entries.set(def.name, entry);
    const { promptSnippet, promptGuidelines } = def;
    specs.push({
      kind: "surface",
      name: def.name,
      description: def.description,
      inputSchema: def.parameters,
      executionMode: def.executionMode,
      redacted: isRedacted(def.tier),
      promptSnippet,
      promptGuidelines,
    });
  });
  return { specs, entries };
}

/**
 * `env` for a scope with live tools (the run, or one sub-agent): its `runTool` runs them
 * by name as their entries (a live entry is one more target of the same `runTool`, with
 * the run's caller and signal); every other name goes on to `env` (the enclosing scope).
 */
export function withLiveTools(env: CallEnv, live: Map<string, SurfaceEntry>): CallEnv {
  if (!live.size) return env;
  return {
    ...env,
    runTool: (target, input, onProgress, callId) =>
      env.runTool((typeof target === "string" && live.get(target)) || target, input, onProgress, callId),
  };
}
