import type { RunRecord } from "../../dispatch/run-record.ts";
import type { AgentRunDeps } from "../agent-run-deps.ts";
import { errorOutcome, outcomeOfRun } from "./call-tool.ts";
import type { CallOutcome } from "./checkpoint.ts";
import type { RunProgress } from "./progress-types.ts";
import type { ResumedBatch, ToolSpec } from "./loop-types.ts";

/** The stored progress of a checkpoint, or null when it has none. */
export function progressOf(checkpoint: unknown): RunProgress | null {
  const p = (checkpoint as { progress?: unknown } | null)?.progress as RunProgress | undefined;
  return p && Array.isArray(p.messages) && typeof p.turns === "number" ? p : null;
}

/**
 * The batch a continuation settles first (docs/agent-stream.md §4.3): the calls of the turn in progress that are
 * done are known (not run again); one that started follows its tool run (its outcome once it ends: a re-driven run's,
 * or kind INTERRUPTED for one whose outcome is unknown); one never started runs now. No batch: the next model turn.
 */
export async function planProgress(p: RunProgress, tools: ToolSpec[], services: AgentRunDeps): Promise<ResumedBatch> {
  const base = { turns: p.turns, history: p.messages, usage: p.usage };
  if (!p.batch) return { calls: [], now: [], known: {}, ...base };
  const specs = new Map(tools.map((t) => [t.name, t]));
  const now: ResumedBatch["now"] = [];
  for (const call of p.batch.calls) {
    if (p.batch.done[call.callId]) continue;
    const toolRunId = p.batch.toolRuns[call.callId];
    if (!toolRunId) now.push({ call });
    else now.push({ call, outcome: await followed(toolRunId, specs.get(call.tool), services) });
  }
  return { calls: p.batch.calls, now, known: p.batch.done, ...base };
}

/** The outcome of a call that was in flight: its tool run's, once that run ends. */
async function followed(toolRunId: string, spec: ToolSpec | undefined, services: AgentRunDeps): Promise<CallOutcome> {
  let run: RunRecord | null = await services.runs.get(toolRunId);
  if (run?.status === "RUNNING" || run?.status === "QUEUED") run = await services.toolRuns.awaitFinal(toolRunId);
  if (!run || run.status === "OUTCOME_UNKNOWN")
    return errorOutcome(
      "INTERRUPTED",
      `the call was in flight when the instance running this agent stopped; whether it took effect is unknown (tool run ${toolRunId})`,
    );
  if (run.status === "PARKED") return { status: spec?.kind === "ask" ? "ask" : "parked", toolRunId };
  return outcomeOfRun(run, run, spec?.redacted ?? false);
}
