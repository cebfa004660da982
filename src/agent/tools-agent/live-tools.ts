import { isRedacted } from "../../auth/tiers.ts";
import type { Caller } from "../../auth/roles.ts";
import type { RunEventRecord } from "../../dispatch/run-record.ts";
import type { Dispatcher, RunOutcome } from "../../dispatch/run-tool.ts";
import type { Issue } from "../../errors.ts";
import type { SurfaceEntry } from "../../registry/surface-entry.ts";
import { entryForTool } from "../../registry/entries/tool-entry.ts";
import type { Surface } from "../../registry/surface.ts";
import type { ToolDefinition } from "../../tools/definition.ts";
import type { CallEnv } from "./call-tool.ts";
import type { ToolSpec } from "./toolbox.ts";

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
    if (surface.resolve(def.name)) return void issues.push({ path: `${path}/${i}`, message: `the live tool "${def.name}" has the name of a surface tool; give it another name` });
    if (def.pauses) return void issues.push({ path: `${path}/${i}`, message: `the live tool "${def.name}" declares pauses; a live tool cannot pause` });
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

/** Runs a live tool through the chokepoint as the run's caller (door "agent", child of the run). */
export function runLive(
  dispatcher: Dispatcher,
  entry: SurfaceEntry,
  input: unknown,
  caller: Caller,
  runId: string,
  onProgress?: (event: RunEventRecord) => void,
  storedInput?: unknown,
  toolCallId?: string,
): Promise<RunOutcome> {
  return dispatcher.runDetailed({ tool: entry.name, input, caller, door: "agent", parentRunId: runId, live: entry, onProgress, storedInput, toolCallId });
}

/**
 * `env` for a scope with live tools (the run, or one sub-agent): its `runTool` runs them
 * by name through `runLive`; every other name goes on to `env` (the enclosing scope).
 */
export function withLiveTools(env: CallEnv, live: Map<string, SurfaceEntry>): CallEnv {
  if (!live.size) return env;
  return {
    ...env,
    runTool: (name, input, onProgress, callId) => {
      const entry = live.get(name);
      return entry ? env.runLive(entry, input, onProgress, callId) : env.runTool(name, input, onProgress, callId);
    },
  };
}
