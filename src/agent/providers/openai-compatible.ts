import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { providerNotConfigured, type ProviderDefinition } from "./provider.ts";

/**
 * Any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, LM Studio,
 * OpenRouter, …), configured by env: `TAI_LLM_BASE_URL`, `TAI_LLM_API_KEY`,
 * `TAI_LLM_MODEL`. Streaming usage is requested (`stream_options.include_usage`).
 */
export function openAICompatibleProvider(env: NodeJS.ProcessEnv): ProviderDefinition {
  return {
    name: "openai-compatible",
    description: "An OpenAI-compatible chat-completions endpoint (TAI_LLM_BASE_URL, TAI_LLM_API_KEY, TAI_LLM_MODEL).",
    configured: () => Boolean(env.TAI_LLM_BASE_URL),
    create(modelId?: string): LanguageModelV3 {
      const baseURL = env.TAI_LLM_BASE_URL;
      if (!baseURL) throw providerNotConfigured("openai-compatible", "TAI_LLM_BASE_URL is not set");
      const model = modelId ?? env.TAI_LLM_MODEL;
      if (!model)
        throw providerNotConfigured("openai-compatible", "no model: set TAI_LLM_MODEL or pass llmKwargs.model");
      const provider = createOpenAICompatible({
        name: "openai-compatible",
        baseURL,
        apiKey: env.TAI_LLM_API_KEY || undefined,
        includeUsage: true,
      });
      return provider.chatModel(model) as LanguageModelV3;
    },
  };
}
