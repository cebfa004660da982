import type { CallEnv } from "../tools-agent/call-tool.ts";
import type { Checkpoint, SubagentPause } from "../tools-agent/checkpoint.ts";

/** The tool runs a checkpoint waits on, its nested sub-agents' included. */
export function parkedRunsOf(cp: Checkpoint): string[] {
  if (cp.kind === "suspend" || (cp.kind === "asks" && "parked" in cp)) return cp.parked.map((p) => p.toolRunId);
  if (cp.kind === "subagent") return parkedRunsOf(cp.state.checkpoint);
  return [];
}

/** Drops a sub-agent pause nobody will resume: the tool runs it waits on are cancelled. */
export async function cancelPause(pause: SubagentPause, env: Pick<CallEnv, "cancelTool">): Promise<void> {
  for (const id of parkedRunsOf(pause.state.checkpoint)) await env.cancelTool(id);
}
