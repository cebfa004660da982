import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { ScriptedModel } from "../../src/agent/providers/scripted-model.ts";
import type { ProviderDefinition } from "../../src/agent/providers/provider.ts";
import type { Gate } from "../lib/stream-text.ts";

/** The provider name the agent-streaming scenario selects with `llmProvider`. */
export const BENCH_PROVIDER = "bench-stream";

/**
 * The scripted model of the agent-streaming scenario: one turn whose text streams as
 * `chunks.length` deltas, with no delay between parts. When the gate is armed, the
 * stream starts only once it opens, so that every subscriber has joined the run first.
 */
export function benchProvider(text: string, gate: Gate): ProviderDefinition {
  return {
    name: BENCH_PROVIDER,
    description: "benchmark: streams a fixed text as word deltas",
    configured: () => true,
    create: () =>
      gated(
        new ScriptedModel([{ text, usage: { inputTokens: 10 } }], { modelId: BENCH_PROVIDER, chunkDelayMs: 0 }),
        gate,
      ),
  };
}

/** The provider name of the paced model (issue 25: the answer as the model writes it). */
export const PACED_PROVIDER = "bench-paced";

/**
 * A model that writes `text` word by word, `chunkMs` apart, as a provider would. `written()`
 * is when each text chunk of the latest stream left the model (ms, see `nowMs`): what a
 * subscriber's arrival times are compared with.
 */
export function pacedProvider(
  text: string,
  chunkMs: number,
  now: () => number,
): { provider: ProviderDefinition; written: () => number[] } {
  let times: number[] = [];
  const model = new ScriptedModel(() => ({ text, usage: { inputTokens: 10 } }), {
    modelId: PACED_PROVIDER,
    chunkDelayMs: chunkMs,
  });
  const tapped = Object.assign(Object.create(model) as ScriptedModel, {
    async doStream(options: LanguageModelV3CallOptions) {
      const r = await model.doStream(options);
      times = [];
      const tap = new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
        transform(part, controller) {
          if (part.type === "text-delta") times.push(now());
          controller.enqueue(part);
        },
      });
      return { ...r, stream: r.stream.pipeThrough(tap) };
    },
  });
  return {
    provider: {
      name: PACED_PROVIDER,
      description: "benchmark: writes a text word by word at a model's pace",
      configured: () => true,
      create: () => tapped,
    },
    written: () => times,
  };
}

function gated(model: ScriptedModel, gate: Gate): LanguageModelV3 {
  return Object.assign(Object.create(model) as ScriptedModel, {
    async doStream(options: LanguageModelV3CallOptions) {
      await gate.pass();
      return model.doStream(options);
    },
  });
}
