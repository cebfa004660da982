import type { ModelMessage } from "ai";
import { classifyAgentError } from "../agent-errors.ts";
import type { StreamEvent } from "../events.ts";
import { errorOutcome } from "../tools-agent/call-tool.ts";
import type { CallOutcome, Checkpoint } from "../tools-agent/checkpoint.ts";
import { forStorage } from "../tools-agent/history.ts";
import type { RunSecrets } from "../tools-agent/run-secrets.ts";
import { withLiveTools } from "../tools-agent/live-tools.ts";
import type { LoopIO, SubagentResume, ToolSpec } from "../tools-agent/loop-types.ts";

const PAUSES = new Set(["interrupt_final", "asks_final", "suspended_final"]);

/**
 * Runs one sub-agent call (docs/agent-stream.md §9): a nested tools-agent loop on the
 * task (its live tools reachable by name in it only), or, with `resume`, the paused one continued where it stopped. Its
 * non-terminal
 * events go to `emit`; a pause terminal comes back as a "paused" outcome carrying what a
 * resume needs (its conversation stored as the thread would store it); an answer is the
 * call's result; a failure is an error result, never a throw.
 */
export async function runSubagent(
  spec: Extract<ToolSpec, { kind: "subagent" }>,
  task: string,
  emit: (e: StreamEvent) => void,
  resume: SubagentResume | undefined,
  io: Omit<LoopIO, "persist" | "checkpoint">,
  secrets: RunSecrets,
): Promise<CallOutcome> {
  const redacted = new Set(spec.tools.flatMap((t) => (t.redacted ? [t.name] : [])));
  const stored = (m: ModelMessage) => forStorage(m, redacted, secrets).message as ModelMessage;
  const first: ModelMessage = { role: "user", content: task };
  const history: ModelMessage[] = resume ? [...resume.state.history] : [first];
  const kept: ModelMessage[] = resume ? [...resume.state.history] : [stored(first)];
  let checkpoint: Checkpoint | null = null;
  let terminal: StreamEvent | null = null;
  try {
    const loop = spec.strategy(
      {
        agent: spec.label,
        mode: "sub",
        model: spec.llm.model,
        settings: spec.llm.settings,
        system: spec.system,
        tools: spec.tools,
        gates: spec.gates,
        responseFormat: spec.responseFormat,
        recursionLimit: spec.recursionLimit,
      },
      {
        ...io,
        env: withLiveTools(io.env, spec.live),
        persist: async (messages) => void kept.push(...messages.map(stored)),
        checkpoint: (c) => void (checkpoint = c),
      },
      history,
      resume?.batch ?? null,
    );
    // Scrubbed here, with its own lag: its held tail leaves when its turn (or its loop) ends (docs/agent-stream.md
    // §2.4).
    for await (const e of secrets.scrubStream(loop, spec.label)) {
      if (e.final) terminal = e;
      else if (e.type !== "run_usage") emit(e);
    }
  } catch (e) {
    const c = classifyAgentError(e, io.signal.aborted);
    return errorOutcome(c.kind, `sub-agent "${spec.name}" failed: ${c.message}`);
  }
  if (terminal && PAUSES.has(terminal.type) && checkpoint)
    return { status: "paused", pause: { terminal, state: { history: kept, checkpoint } } };
  if (terminal?.type === "structured_final")
    return {
      status: "done",
      isError: false,
      result: terminal.data,
      modelOutput: { type: "json", value: terminal.data as never },
      terminate: false,
      value: terminal.data,
    };
  const text = terminal?.type === "message_final" ? terminal.text : "";
  return {
    status: "done",
    isError: false,
    result: text,
    modelOutput: { type: "text", value: text || "(the sub-agent gave no answer)" },
    terminate: false,
    value: text,
  };
}
