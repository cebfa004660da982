import type { Caller } from "../auth/roles.ts";
import type { RunEventRecord, RunRecord } from "../dispatch/run-record.ts";
import type { Dispatcher } from "../dispatch/dispatcher.ts";
import type { RunOutcome } from "../dispatch/request.ts";
import { ApiError } from "../errors.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import type { SecretScope } from "../secrets/secrets.ts";

/** What an agent's call runs: a surface name, or a live tool's entry (tools-agent/live-tools.ts). */
export type ToolTarget = string | SurfaceEntry;

/** What a call passes beside its input. */
export interface ToolCallOptions {
  /** Told each RUN_PROGRESS of the run it starts (the tool's `ctx.onUpdate`). */
  onProgress?: (event: RunEventRecord) => void;
  /** What the run record stores as its input when it must differ (scrubbed of the run's secrets). */
  storedInput?: unknown;
  /** The model's call the run carries out (`RunRequest.toolCallId`, `ToolResult#toolCallId`). */
  toolCallId?: string;
  /** Told the tool run's id as soon as it is known (`RunRequest.onRun`). */
  onRun?: (toolRunId: string) => void;
}

/** The one way an agent run reaches tools: what `AgentContext.runTool` and `cancelTool` are. */
export interface AgentToolPort {
  runTool(target: ToolTarget, input: unknown, options?: ToolCallOptions): Promise<RunOutcome>;
  cancelTool(toolRunId: string): Promise<void>;
}

/** What the agent layer reads of tool runs outside a run (a resume's parked calls). */
export interface ToolRunsPort {
  /** The run once it is no longer RUNNING (a parked run being resumed elsewhere ends in time). */
  awaitFinal(toolRunId: string): Promise<RunRecord>;
}

/**
 * The tool port of one agent run: every call goes through the dispatch chokepoint as the
 * run's caller (door "agent", parentRunId = the run) with the run's signal as the caller
 * signal, so cancelling the run (a cancel, the run that started it, shutdown) cancels
 * its calls in flight; a call made after the run was cancelled ends CANCELLED at once. Each call's scope of secrets
 * starts under the run's (`secrets`): what the run learned is scrubbed from the call's records and from an agent it
 * starts.
 * `cancelTool` ends a run the caller may see (one the agent started), as `cancelRun` would;
 * another id is left alone.
 */
export function agentToolPort(
  dispatcher: Pick<Dispatcher, "runDetailed" | "cancelFor">,
  run: { runId: string; caller: Caller; signal: AbortSignal; secrets?: SecretScope },
): AgentToolPort {
  const { runId, caller, signal, secrets } = run;
  return {
    runTool: (target, input, options) =>
      dispatcher.runDetailed({
        tool: typeof target === "string" ? target : target.name,
        live: typeof target === "string" ? undefined : target,
        input,
        caller,
        door: "agent",
        parentRunId: runId,
        signal,
        onProgress: options?.onProgress,
        storedInput: options?.storedInput,
        secrets,
        toolCallId: options?.toolCallId,
        onRun: options?.onRun,
      }),
    cancelTool: async (toolRunId) => {
      try {
        await dispatcher.cancelFor(caller, toolRunId);
      } catch (e) {
        if (!(e instanceof ApiError && e.code === "NOT_FOUND")) throw e;
      }
    },
  };
}
