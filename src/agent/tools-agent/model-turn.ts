import type { LanguageModelV3 } from "@ai-sdk/provider";
import { jsonSchema, NoSuchToolError, Output, streamText, type JSONSchema7, type ModelMessage } from "ai";
import type { StreamEvent } from "../events.ts";
import type { CallSettings } from "../providers/registry.ts";
import { ToolError } from "../../errors.ts";
import type { JsonSchema } from "../../tools/json-schema.ts";
import type { PlannedCall } from "./checkpoint.ts";
import type { ToolSpec } from "./toolbox.ts";
import type { UsageTotals } from "./usage.ts";

/** One model call of the loop. */
export interface TurnRequest {
  model: LanguageModelV3;
  settings: CallSettings;
  system: string;
  messages: ModelMessage[];
  tools: ToolSpec[];
  responseFormat: JsonSchema | null;
  signal: AbortSignal;
  /** Attribution of the events (null: the run's own agent). */
  agent: string | null;
  usage: UsageTotals;
}

/** What one model call produced. */
export interface TurnResult {
  text: string;
  calls: PlannedCall[];
  /** The assistant message to append to the history (null when the model said nothing). */
  assistant: ModelMessage | null;
  /**
   * The turn's text chunks not streamed yet, as the model cut them: all of its text when
   * the turn called no tool (the loop then streams them as the answer or as intermediate
   * text), none when it did (they were streamed as IntermediateDelta).
   */
  held: string[];
}

/**
 * Streams one model call through the AI SDK (`streamText`, one step, tools without
 * `execute`: the loop runs them itself through the chokepoint). Yields one ReasoningStep
 * per non-blank reasoning block. Text is held until the turn shows what it is
 * (docs/agent-stream.md §2.2): once the model starts a tool call, the held chunks and the
 * rest of the turn's text stream as IntermediateDelta; a turn that calls no tool returns
 * its chunks in `held`. Returns the text, the tool calls in the order asked, and the
 * assistant message. A provider error is thrown (after the SDK's own retries) and fails
 * the run.
 */
export async function* modelTurn(req: TurnRequest): AsyncGenerator<StreamEvent, TurnResult> {
  const tools = req.tools.length ? Object.fromEntries(req.tools.map((t) => [t.name, { description: t.description, inputSchema: jsonSchema(forModel(t.inputSchema)) }])) : undefined;
  const { maxRetries, providerOptions, ...callSettings } = req.settings;
  const result = streamText({
    model: req.model,
    system: req.system,
    messages: req.messages,
    tools,
    ...(req.responseFormat ? { output: Output.object({ schema: jsonSchema(forModel(req.responseFormat)) }) } : {}),
    ...callSettings,
    providerOptions: providerOptions as never,
    maxRetries: maxRetries ?? 2,
    abortSignal: req.signal,
    // The error arrives as a stream part and fails the run; the SDK's default logs it to stderr.
    onError: () => {},
  });
  let text = "";
  const reasoning = new Map<string, string>();
  const calls: PlannedCall[] = [];
  let modelId: string | undefined;
  let held: string[] = [];
  let calling = false;
  const intermediate = (t: string): StreamEvent => ({ type: "intermediate_delta", final: false, text: t, agent: req.agent });
  const release = function* (): Generator<StreamEvent> {
    calling = true;
    for (const t of held) yield intermediate(t);
    held = [];
  };
  const flush = function* (id: string): Generator<StreamEvent> {
    const t = reasoning.get(id);
    reasoning.delete(id);
    if (t && t.trim()) yield { type: "reasoning_step", final: false, text: t, agent: req.agent };
  };
  try {
    for await (const part of result.fullStream) {
      switch (part.type) {
        case "text-delta":
          if (!part.text) break;
          text += part.text;
          if (calling) yield intermediate(part.text);
          else held.push(part.text);
          break;
        case "reasoning-delta":
          reasoning.set(part.id, (reasoning.get(part.id) ?? "") + part.text);
          break;
        case "reasoning-end":
          yield* flush(part.id);
          break;
        case "tool-input-start":
          yield* release();
          break;
        case "tool-call":
          yield* release();
          calls.push(planned(part, req.tools));
          break;
        case "finish-step":
          modelId = part.response?.modelId;
          req.usage.add(part.usage, modelId);
          break;
        case "error":
          throw part.error;
        case "abort":
          throw new ToolError("the agent run was cancelled", { kind: "CANCELLED" });
      }
    }
  } catch (e) {
    // A turn cut short (cancelled, the provider failed) gave no answer: what it said is kept as intermediate text.
    for (const t of held) yield intermediate(t);
    throw e;
  }
  for (const id of [...reasoning.keys()]) yield* flush(id);
  const assistant = (await result.response).messages.find((m) => m.role === "assistant") ?? null;
  if (calls.length) yield* release();
  return { text, calls, assistant, held };
}

/** A tool call as the loop plans it; a call the SDK could not parse carries its error. */
function planned(part: { toolCallId: string; toolName: string; input: unknown; invalid?: boolean; error?: unknown }, tools: ToolSpec[]): PlannedCall {
  const args = part.input && typeof part.input === "object" && !Array.isArray(part.input) ? (part.input as Record<string, unknown>) : {};
  const base = { callId: part.toolCallId, tool: part.toolName, args };
  if (!part.invalid) {
    if (args !== part.input) return { ...base, invalid: { kind: "INVALID_INPUT", message: `invalid input for "${part.toolName}": the arguments must be a JSON object` } };
    return base;
  }
  if (NoSuchToolError.isInstance(part.error))
    return { ...base, invalid: { kind: "NOT_FOUND", message: `no tool named "${part.toolName}" in this run (available: ${tools.map((t) => t.name).join(", ") || "none"})` } };
  const why = part.error instanceof Error ? (part.error.cause instanceof Error ? part.error.cause.message : part.error.message) : "unparseable";
  return { ...base, invalid: { kind: "INVALID_INPUT", message: `invalid input for "${part.toolName}": the arguments are not valid JSON (${why.split("\n")[0]})` } };
}

/** The schema as a provider receives it: without the `$schema` keyword some endpoints refuse. */
function forModel(schema: JsonSchema): JSONSchema7 {
  const { $schema: _drop, ...rest } = schema;
  void _drop;
  return rest as JSONSchema7;
}
