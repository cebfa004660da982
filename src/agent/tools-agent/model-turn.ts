import type { LanguageModelV3 } from "@ai-sdk/provider";
import { jsonSchema, NoSuchToolError, Output, streamText, type JSONSchema7, type ModelMessage } from "ai";
import type { StreamEvent } from "../events.ts";
import type { CallSettings } from "../providers/registry.ts";
import { ToolError } from "../../errors.ts";
import type { JsonSchema } from "../../tools/json-schema.ts";
import type { PlannedCall } from "./checkpoint.ts";
import type { UsageTotals } from "./usage.ts";
import type { ToolSpec } from "./loop-types.ts";

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
  /** The member the turn's text streams as: the run's own agent's is MessageDelta, a sub-agent's IntermediateDelta. */
  member: "message_delta" | "intermediate_delta";
  /** The turn's number (docs/agent-stream.md §2.2), carried by each of its deltas. */
  turn: number;
  usage: UsageTotals;
}

/** What one model call produced. */
export interface TurnResult {
  text: string;
  calls: PlannedCall[];
  /** The assistant message to append to the history (null when the model said nothing). */
  assistant: ModelMessage | null;
}

/**
 * Streams one model call through the AI SDK (`streamText`, one step, tools without
 * `execute`: the loop runs them itself through the chokepoint). Yields one ReasoningStep
 * per non-blank reasoning block. Text streams live (docs/agent-stream.md §2.2): each chunk
 * the provider streams is yielded at once as a delta of `req.member` tagged with
 * `req.turn`, whatever the turn turns out to be (what follows it settles that). Returns
 * the text, the tool calls in the order asked, and the assistant message. A provider
 * error is thrown (after the SDK's own retries) and fails the run; what the turn streamed
 * before stays.
 */
export async function* modelTurn(req: TurnRequest): AsyncGenerator<StreamEvent, TurnResult> {
  const tools = req.tools.length
    ? Object.fromEntries(
        req.tools.map((t) => [
          t.name,
          { description: t.description, inputSchema: jsonSchema(forModel(t.inputSchema)) },
        ]),
      )
    : undefined;
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
  const flush = function* (id: string): Generator<StreamEvent> {
    const t = reasoning.get(id);
    reasoning.delete(id);
    if (t && t.trim()) yield { type: "reasoning_step", final: false, text: t, agent: req.agent };
  };
  for await (const part of result.fullStream) {
    switch (part.type) {
      case "text-delta":
        if (!part.text) break;
        text += part.text;
        yield { type: req.member, final: false, text: part.text, turn: req.turn, agent: req.agent };
        break;
      case "reasoning-delta":
        reasoning.set(part.id, (reasoning.get(part.id) ?? "") + part.text);
        break;
      case "reasoning-end":
        yield* flush(part.id);
        break;
      case "tool-call":
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
  for (const id of [...reasoning.keys()]) yield* flush(id);
  const assistant = (await result.response).messages.find((m) => m.role === "assistant") ?? null;
  return { text, calls, assistant };
}

/** A tool call as the loop plans it; a call the SDK could not parse carries its error. */
function planned(
  part: { toolCallId: string; toolName: string; input: unknown; invalid?: boolean; error?: unknown },
  tools: ToolSpec[],
): PlannedCall {
  const args =
    part.input && typeof part.input === "object" && !Array.isArray(part.input)
      ? (part.input as Record<string, unknown>)
      : {};
  const base = { callId: part.toolCallId, tool: part.toolName, args };
  if (!part.invalid) {
    if (args !== part.input)
      return {
        ...base,
        invalid: {
          kind: "INVALID_INPUT",
          message: `invalid input for "${part.toolName}": the arguments must be a JSON object`,
        },
      };
    return base;
  }
  if (NoSuchToolError.isInstance(part.error))
    return {
      ...base,
      invalid: {
        kind: "NOT_FOUND",
        message: `no tool named "${part.toolName}" in this run (available: ${tools.map((t) => t.name).join(", ") || "none"})`,
      },
    };
  const why =
    part.error instanceof Error
      ? part.error.cause instanceof Error
        ? part.error.cause.message
        : part.error.message
      : "unparseable";
  return {
    ...base,
    invalid: {
      kind: "INVALID_INPUT",
      message: `invalid input for "${part.toolName}": the arguments are not valid JSON (${why.split("\n")[0]})`,
    },
  };
}

/** The schema as a provider receives it: without the `$schema` keyword some endpoints refuse. */
function forModel(schema: JsonSchema): JSONSchema7 {
  const { $schema: _drop, ...rest } = schema;
  void _drop;
  return rest as JSONSchema7;
}
