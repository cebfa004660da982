import type { Checkpoint, InterruptAction, SubagentPause } from "../tools-agent/checkpoint.ts";
import type { CallEnv } from "../tools-agent/loop-types.ts";

/** The tool runs a checkpoint waits on, its nested sub-agents' included. */
export function parkedRunsOf(cp: Checkpoint): string[] {
  if (cp.kind === "suspend" || (cp.kind === "asks" && "parked" in cp)) return cp.parked.map((p) => p.toolRunId);
  if (cp.kind === "subagent") return parkedRunsOf(cp.state.checkpoint);
  if (cp.kind === "subagents") return cp.paused.flatMap((p) => parkedRunsOf(p.state.checkpoint));
  return [];
}

/**
 * The interactions (or, for asks stored before they were parks, the ask ids) a checkpoint waits on, through its
 * sub-agents.
 */
export function awaitedIdsOf(cp: Checkpoint): string[] {
  if (cp.kind === "suspend" || (cp.kind === "asks" && "parked" in cp))
    return cp.parked.flatMap((p) => p.interactionIds);
  if (cp.kind === "asks" && "asks" in cp) return cp.asks.map((a) => a.id);
  if (cp.kind === "subagent") return awaitedIdsOf(cp.state.checkpoint);
  if (cp.kind === "subagents") return cp.paused.flatMap((p) => awaitedIdsOf(p.state.checkpoint));
  return [];
}

/** How many approval decisions a checkpoint waits on, through its sub-agents. */
export function pendingActionsOf(cp: Checkpoint): number {
  if (cp.kind === "interrupt") return cp.actions.length;
  if (cp.kind === "subagent") return pendingActionsOf(cp.state.checkpoint);
  if (cp.kind === "subagents") return cp.paused.reduce((n, p) => n + pendingActionsOf(p.state.checkpoint), 0);
  return 0;
}

/** The approval actions a checkpoint waits on, through its sub-agents, in the order its InterruptFinal lists them. */
export function actionsOf(cp: Checkpoint): InterruptAction[] {
  if (cp.kind === "interrupt") return cp.actions;
  if (cp.kind === "subagent") return actionsOf(cp.state.checkpoint);
  if (cp.kind === "subagents") return cp.paused.flatMap((p) => actionsOf(p.state.checkpoint));
  return [];
}

/** The interruptId of the InterruptFinal a checkpoint surfaced, or null when it waits on no approval. */
export function pendingInterruptOf(cp: Checkpoint): string | null {
  if (cp.kind === "interrupt") return cp.interruptId;
  if (cp.kind === "subagent") return pendingInterruptOf(cp.state.checkpoint);
  if (cp.kind === "subagents") return cp.interruptId ?? null;
  return null;
}

/** Drops a sub-agent pause nobody will resume: the tool runs it waits on are cancelled. */
export async function cancelPause(pause: SubagentPause, env: Pick<CallEnv, "cancelTool">): Promise<void> {
  for (const id of parkedRunsOf(pause.state.checkpoint)) await env.cancelTool(id);
}
