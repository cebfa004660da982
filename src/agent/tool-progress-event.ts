import type { RunEventRecord } from "../dispatch/run-record.ts";

/**
 * A partial update from a tool call while it runs (docs/agent-stream.md §2): the body's
 * `ctx.onUpdate`, as its run's RUN_PROGRESS event carries it (docs/tool-authoring.md §5).
 * It comes after the call's ToolCallStep and before its ToolResultStep; a secret-tier
 * tool's message and details are "[redacted]".
 */
export interface ToolProgressStep {
  type: "tool_progress_step";
  final: false;
  /** The sub-agent whose call it is; null or absent for the run's own agent. */
  agent?: string | null;
  tool: string;
  callId: string;
  /** The tool run reporting (a preset's call reports its base tool's run). */
  toolRunId: string;
  message: string | null;
  progress: number | null;
  total: number | null;
  details: unknown;
}

/** The step for one RUN_PROGRESS of the run a call started. */
export function toolProgressStep(
  tool: string,
  callId: string,
  agent: string | null,
  event: RunEventRecord,
): ToolProgressStep {
  const p = event.progress;
  return {
    type: "tool_progress_step",
    final: false,
    tool,
    callId,
    toolRunId: event.runId,
    message: p?.message ?? null,
    progress: p?.progress ?? null,
    total: p?.total ?? null,
    details: p?.details ?? null,
    agent,
  };
}
