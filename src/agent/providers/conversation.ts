import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { OfferedTool } from "./scripted-model.ts";

/** A tool result the model was shown: the call it answers and what came back. */
export interface SeenToolResult {
  /** The tool the call named. */
  name: string;
  /** The arguments of the call, as the model sent them. */
  args: Record<string, unknown>;
  /** What the model got back: the parsed JSON value when the result is JSON text, else the text (or value) as given. */
  output: unknown;
  /** Whether the result is an error (the tool failed, was unknown, was refused or rejected). */
  isError: boolean;
  callId: string;
}

/**
 * What a scripted model's function reads to decide its turn: the conversation as the
 * model is shown it, in plain values. Deterministic: the same conversation gives the same
 * view, whichever run, resume or server instance makes the call.
 */
export interface Conversation {
  /**
   * 0-based index of this model call in the conversation: how many assistant turns the
   * model is shown (the thread's earlier runs included). A turns list plays `turns[turn]`.
   */
  turn: number;
  /** The text of the last user message ("" when there is none). */
  userMessage: string;
  /** The system message ("" when there is none). */
  system: string;
  /** Every tool result since the last user message, in order. */
  toolResults: SeenToolResult[];
  /** The names of the tools offered in this call. */
  tools: string[];
  /** The raw prompt (AI SDK `LanguageModelV3Prompt`), for what the fields above leave out. */
  prompt: LanguageModelV3Prompt;
}

type Part = { type: string; text?: string; toolCallId?: string; toolName?: string; input?: unknown; output?: unknown };

/** Reads a model call's prompt and offered tools as a {@link Conversation}. */
export function conversationOf(prompt: LanguageModelV3Prompt, tools: OfferedTool[]): Conversation {
  let lastUser = -1;
  let turn = 0;
  prompt.forEach((m, i) => {
    if (m.role === "user") lastUser = i;
    if (m.role === "assistant") turn++;
  });
  const textOf = (content: unknown) =>
    typeof content === "string"
      ? content
      : (content as Part[])
          .map((p) => (p.type === "text" ? (p.text ?? "") : ""))
          .join("")
          .trim();
  const system = prompt
    .filter((m) => m.role === "system")
    .map((m) => m.content as string)
    .join("\n");
  const args = new Map<string, Record<string, unknown>>();
  const toolResults: SeenToolResult[] = [];
  for (const m of prompt.slice(lastUser + 1)) {
    if (m.role === "assistant")
      for (const p of m.content as Part[]) if (p.type === "tool-call") args.set(p.toolCallId ?? "", parseArgs(p.input));
    if (m.role !== "tool") continue;
    for (const p of m.content as Part[]) {
      if (p.type !== "tool-result") continue;
      const out = (p.output ?? {}) as { type?: string; value?: unknown };
      const callId = p.toolCallId ?? "";
      toolResults.push({
        name: p.toolName ?? "",
        args: args.get(callId) ?? {},
        output: valueOf(out.value),
        isError: String(out.type ?? "").startsWith("error"),
        callId,
      });
    }
  }
  return {
    turn,
    userMessage: lastUser < 0 ? "" : textOf(prompt[lastUser].content),
    system,
    toolResults,
    tools: tools.map((t) => t.name),
    prompt,
  };
}

function parseArgs(input: unknown): Record<string, unknown> {
  const value = typeof input === "string" ? valueOf(input) : input;
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function valueOf(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
