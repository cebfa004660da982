import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { APICallError } from "ai";

/** One tool call a scripted turn makes. */
export interface ScriptedToolCall {
  toolName: string;
  /** An object is JSON-encoded; a string is sent as-is (to script invalid JSON). */
  input: Record<string, unknown> | string;
  /** @default "call_<turn>_<index>" */
  id?: string;
}

/** What the scripted model says in one model call. */
export interface ScriptedTurn {
  reasoning?: string;
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Token counts to report. @default estimated from the characters (÷ 4) */
  usage?: { inputTokens?: number; outputTokens?: number };
  /** Fail the call with this message instead: an upstream HTTP 500 carrying it. */
  error?: string;
}

/** A tool as the model sees it in one call. */
export interface OfferedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** What a script function reads to decide its turn. */
export interface ScriptView {
  prompt: LanguageModelV3Prompt;
  tools: OfferedTool[];
  /** The JSON Schema the answer must match, when the caller asked for structured output. */
  responseFormat: Record<string, unknown> | null;
  /** 0-based count of calls this model instance has answered before. */
  call: number;
}

/**
 * A script: a list of turns played in order (one per model call), or a function of what
 * the model is shown. Contract: a function must be deterministic in its view.
 */
export type Script = ScriptedTurn[] | ((view: ScriptView) => ScriptedTurn);

/** Options of {@link ScriptedModel}. */
export interface ScriptedModelOptions {
  /** @default "scripted-1" */
  modelId?: string;
  /** Milliseconds between streamed parts, for a realistic pace. @default 0 */
  chunkDelayMs?: number;
}

/**
 * A deterministic language model implementing the AI SDK's LanguageModelV3 interface:
 * it streams text word by word, reasoning, and tool calls whose arguments arrive in
 * several chunks, exactly as a provider does. Used by the embedded default (no network)
 * and by tests (a fake model stream).
 */
export class ScriptedModel implements LanguageModelV3 {
  readonly specificationVersion = "v3";
  readonly provider = "scripted";
  readonly modelId: string;
  readonly supportedUrls = {};
  private calls = 0;
  /** Every call's options, for tests that assert what the model was shown. */
  readonly seen: LanguageModelV3CallOptions[] = [];

  constructor(
    private readonly script: Script,
    private readonly options: ScriptedModelOptions = {},
  ) {
    this.modelId = options.modelId ?? "scripted-1";
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const { turn, n } = this.next(options);
    if (turn.error) throw upstreamError(turn.error);
    const content: LanguageModelV3Content[] = [];
    if (turn.reasoning) content.push({ type: "reasoning", text: turn.reasoning });
    if (turn.text) content.push({ type: "text", text: turn.text });
    (turn.toolCalls ?? []).forEach((c, i) =>
      content.push({
        type: "tool-call",
        toolCallId: c.id ?? `call_${n}_${i}`,
        toolName: c.toolName,
        input: encode(c.input),
      }),
    );
    return { content, finishReason: finishOf(turn), usage: usageOf(turn, options.prompt), warnings: [] };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const { turn, n } = this.next(options);
    const parts = turn.error
      ? [
          { type: "stream-start", warnings: [] } as LanguageModelV3StreamPart,
          { type: "error", error: upstreamError(turn.error) } as LanguageModelV3StreamPart,
        ]
      : partsOf(turn, n, options.prompt, this.modelId);
    const delay = this.options.chunkDelayMs ?? 0;
    let i = 0;
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      async pull(controller) {
        if (i >= parts.length) return controller.close();
        if (delay > 0 && i > 0) await new Promise((r) => setTimeout(r, delay));
        if (options.abortSignal?.aborted) return controller.error(options.abortSignal.reason ?? new Error("aborted"));
        controller.enqueue(parts[i++]);
      },
    });
    return { stream };
  }

  private next(options: LanguageModelV3CallOptions): { turn: ScriptedTurn; n: number } {
    this.seen.push(options);
    const n = this.calls++;
    if (Array.isArray(this.script)) {
      const turn = this.script[n];
      if (!turn) return { turn: { error: `the script has no turn ${n + 1} (it has ${this.script.length})` }, n };
      return { turn, n };
    }
    const tools = (options.tools ?? []).flatMap((t) =>
      t.type === "function"
        ? [{ name: t.name, description: t.description ?? "", inputSchema: t.inputSchema as Record<string, unknown> }]
        : [],
    );
    const rf =
      options.responseFormat?.type === "json"
        ? ((options.responseFormat.schema as Record<string, unknown> | undefined) ?? {})
        : null;
    return { turn: this.script({ prompt: options.prompt, tools, responseFormat: rf, call: n }), n };
  }
}

function upstreamError(message: string): APICallError {
  return new APICallError({
    message,
    url: "scripted://model",
    requestBodyValues: {},
    statusCode: 500,
    responseBody: JSON.stringify({ error: { message } }),
    isRetryable: false,
  });
}

function encode(input: Record<string, unknown> | string): string {
  return typeof input === "string" ? input : JSON.stringify(input);
}

function finishOf(turn: ScriptedTurn) {
  return turn.toolCalls?.length
    ? { unified: "tool-calls" as const, raw: "tool_calls" }
    : { unified: "stop" as const, raw: "stop" };
}

function usageOf(turn: ScriptedTurn, prompt: LanguageModelV3Prompt): LanguageModelV3Usage {
  const input = turn.usage?.inputTokens ?? Math.ceil(JSON.stringify(prompt).length / 4);
  const output =
    turn.usage?.outputTokens ??
    Math.ceil(
      ((turn.text ?? "").length + (turn.reasoning ?? "").length + JSON.stringify(turn.toolCalls ?? []).length) / 4,
    );
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

/** Splits text into word-sized chunks that concatenate back to it. */
export function wordChunks(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
}

function partsOf(
  turn: ScriptedTurn,
  n: number,
  prompt: LanguageModelV3Prompt,
  modelId: string,
): LanguageModelV3StreamPart[] {
  const parts: LanguageModelV3StreamPart[] = [
    { type: "stream-start", warnings: [] },
    { type: "response-metadata", id: `scripted-${n}`, modelId },
  ];
  if (turn.reasoning) {
    parts.push({ type: "reasoning-start", id: `r${n}` });
    for (const d of wordChunks(turn.reasoning)) parts.push({ type: "reasoning-delta", id: `r${n}`, delta: d });
    parts.push({ type: "reasoning-end", id: `r${n}` });
  }
  if (turn.text) {
    parts.push({ type: "text-start", id: `t${n}` });
    for (const d of wordChunks(turn.text)) parts.push({ type: "text-delta", id: `t${n}`, delta: d });
    parts.push({ type: "text-end", id: `t${n}` });
  }
  (turn.toolCalls ?? []).forEach((c, i) => {
    const id = c.id ?? `call_${n}_${i}`;
    const json = encode(c.input);
    const cut = Math.max(1, Math.floor(json.length / 2));
    parts.push({ type: "tool-input-start", id, toolName: c.toolName });
    for (const d of [json.slice(0, cut), json.slice(cut)])
      if (d) parts.push({ type: "tool-input-delta", id, delta: d });
    parts.push({ type: "tool-input-end", id });
    parts.push({ type: "tool-call", toolCallId: id, toolName: c.toolName, input: json });
  });
  parts.push({ type: "finish", finishReason: finishOf(turn), usage: usageOf(turn, prompt) });
  return parts;
}
