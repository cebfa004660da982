import { REDACTED } from "../../auth/tiers.ts";
import type { RunEventRecord, RunRecord } from "../../dispatch/run-record.ts";
import { toolProgressStep } from "../tool-progress-event.ts";
import type { RunOutcome } from "../../dispatch/request.ts";
import type { Issue } from "../../errors.ts";
import type { ContentBlock } from "../../tools/result.ts";
import type { StreamEvent } from "../events.ts";
import { ASK_CALLER } from "./ask-caller.ts";
import type { CallOutcome, DoneOutcome, PlannedCall } from "./checkpoint.ts";
import type { RunSecrets } from "./run-secrets.ts";
import { bakeInput } from "../../registry/entries/preset-entry.ts";
import type { CallEnv, SubagentResume, ToolSpec } from "./loop-types.ts";

/** A failed call as the model and the events see it: kind, message and every issue. */
export function errorOutcome(kind: string, message: string, issues?: Issue[]): DoneOutcome {
  const error = { kind, message, ...(issues?.length ? { issues } : {}) };
  return {
    status: "done",
    isError: true,
    result: error,
    modelOutput: { type: "error-json", value: { error } as never },
    terminate: false,
    value: error,
  };
}

/**
 * Makes one call. Surface tools (live ones included) and presets go through the chokepoint
 * (tiers, validation, retries), an inline preset as its base tool with its constants baked
 * in by `bakeInput` (registry/entries/preset-entry.ts); a parked run becomes a "parked" outcome; ask_caller parks
 * too and becomes an "ask". Every
 * failure is an error outcome the model reads; nothing here throws for a tool failure.
 */
export async function callTool(
  spec: ToolSpec,
  call: PlannedCall,
  env: CallEnv,
  emit: (e: StreamEvent) => void,
  agent: string | null = null,
  resume?: SubagentResume,
): Promise<CallOutcome> {
  if (spec.redacted) env.secrets.learn(call.args);
  // The tool's updates stream as ToolProgressSteps between this call's ToolCallStep and its result.
  const onProgress = (e: RunEventRecord) => emit(toolProgressStep(spec.name, call.callId, agent, e));
  switch (spec.kind) {
    case "surface":
      return fromRun(spec, await env.runTool(spec.name, call.args, onProgress, call.callId), env);
    case "preset": {
      // An inline preset has no entry: it runs as its base tool, baked by the preset's own rules.
      const baked = bakeInput(call.args, spec.fixedKwargs, "is baked by the preset and cannot be passed");
      if (!baked.ok)
        return errorOutcome(
          "INVALID_INPUT",
          `invalid input for "${spec.name}": ${baked.issues.map((i) => `${i.path}: is baked by the preset`).join("; ")}`,
          baked.issues,
        );
      return fromRun(spec, await env.runTool(spec.baseTool, baked.value, onProgress, call.callId), env);
    }
    case "ask": {
      // A real park: the question is an interaction addressed to the caller (docs/agent-stream.md §8).
      // Scrubbed of what the run learned from secret tools: the question is stored and shown to the caller.
      const outcome = fromRun(
        spec,
        await env.runTool(ASK_CALLER, env.secrets.scrub(call.args), undefined, call.callId),
        env,
      );
      return outcome.status === "parked" ? { status: "ask", toolRunId: outcome.toolRunId } : outcome;
    }
    case "subagent": {
      const task = (call.args as { task?: unknown }).task;
      if (typeof task !== "string" || !task.trim())
        return errorOutcome("INVALID_INPUT", `invalid input for "${spec.name}": /task: must be a non-empty string`, [
          { path: "/task", message: "must be a non-empty string" },
        ]);
      return env.runSubagent(spec, task, emit, resume);
    }
  }
}

/** The outcome of a chokepoint run: the stored (redacted) record for events, the real output for the model. */
function fromRun(spec: ToolSpec, { run, output }: RunOutcome, env: CallEnv): CallOutcome {
  if (run.status === "PARKED") return { status: "parked", toolRunId: run.id };
  return outcomeOfRun(run, output, spec.redacted, env.secrets);
}

/**
 * Maps a finished tool run to an outcome. `output` may be the stored record when the real one is gone (a resumed park).
 */
export function outcomeOfRun(run: RunRecord, output: RunRecord, redacted: boolean, secrets?: RunSecrets): DoneOutcome {
  if (redacted) secrets?.learn([output.data, output.content]);
  if (run.status !== "SUCCEEDED") {
    const issues = issuesOf(output.details);
    const failed = errorOutcome(
      output.errorKind ?? "INTERNAL",
      output.errorMessage ?? `the tool ended ${run.status}`,
      issues,
    );
    const shown = {
      kind: run.errorKind ?? "INTERNAL",
      message: run.errorMessage ?? `the tool ended ${run.status}`,
      ...(issuesOf(run.details)?.length ? { issues: issuesOf(run.details) } : {}),
    };
    return { ...failed, result: shown, details: run.details ?? null, terminate: output.terminate };
  }
  const text = textOf(output.content);
  return {
    status: "done",
    isError: false,
    result: resultValue(run),
    details: run.details ?? null,
    modelOutput: {
      type: "text",
      value:
        text ||
        (output.data === null || output.data === undefined
          ? "(the tool returned nothing)"
          : JSON.stringify(output.data)),
    },
    terminate: output.terminate,
    value: output.data ?? text,
  };
}

/**
 * The tool's result value as it returned it (docs/agent-stream.md §2): its structured
 * data when it returned some; else the text of its one text block (a body that returned
 * a string); else its content blocks, untouched; null when it returned nothing.
 */
export function resultValue(run: Pick<RunRecord, "data" | "content">): unknown {
  if (run.data !== null && run.data !== undefined) return run.data;
  const [only, ...more] = run.content;
  if (!only) return null;
  if (!more.length && only.type === "text" && typeof only.text === "string" && Object.keys(only).length === 2)
    return only.text;
  return run.content;
}

function issuesOf(details: unknown): Issue[] | undefined {
  const issues = (details as { issues?: unknown } | null)?.issues;
  return Array.isArray(issues) ? (issues as Issue[]) : undefined;
}

export function textOf(content: ContentBlock[]): string {
  return content.map((b) => b.text ?? (b.data === undefined ? "" : JSON.stringify(b.data))).join("\n");
}

/** An outcome as a checkpoint may store it: a secret tool's result and model text are redacted. */
export function storable(outcome: DoneOutcome, redacted: boolean): DoneOutcome {
  if (!redacted) return outcome;
  return {
    ...outcome,
    result: REDACTED,
    value: REDACTED,
    details: outcome.details === null || outcome.details === undefined ? null : REDACTED,
    modelOutput: outcome.isError ? outcome.modelOutput : { type: "text", value: REDACTED },
  };
}
