import { createAnthropic } from "@ai-sdk/anthropic";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { providerNotConfigured, type ProviderDefinition } from "./provider.ts";

/** Anthropic's Messages API: key from `ANTHROPIC_API_KEY`, model from `TAI_ANTHROPIC_MODEL`. */
export function anthropicProvider(env: NodeJS.ProcessEnv): ProviderDefinition {
  return {
    name: "anthropic",
    description: "Anthropic (ANTHROPIC_API_KEY; model TAI_ANTHROPIC_MODEL, default claude-sonnet-4-5).",
    configured: () => Boolean(env.ANTHROPIC_API_KEY),
    create(modelId?: string): LanguageModelV3 {
      const apiKey = env.ANTHROPIC_API_KEY;
      if (!apiKey) throw providerNotConfigured("anthropic", "ANTHROPIC_API_KEY is not set");
      return createAnthropic({ apiKey })(modelId ?? env.TAI_ANTHROPIC_MODEL ?? "claude-sonnet-4-5") as LanguageModelV3;
    },
  };
}
