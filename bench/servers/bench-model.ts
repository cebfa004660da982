import type { LanguageModelV3, LanguageModelV3CallOptions } from "@ai-sdk/provider";
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
    create: () => gated(new ScriptedModel([{ text, usage: { inputTokens: 10 } }], { modelId: BENCH_PROVIDER, chunkDelayMs: 0 }), gate),
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
