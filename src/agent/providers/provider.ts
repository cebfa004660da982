import type { LanguageModelV3 } from "@ai-sdk/provider";
import { DefinitionError } from "../../definition-error.ts";

/** One LLM provider: a name and a factory of AI SDK language models. */
export interface ProviderDefinition {
  name: string;
  description: string;
  /** Whether its settings (env) are present. */
  configured(): boolean;
  /** Contract: throws {@link providerNotConfigured}'s error when a setting is missing; never calls the network. */
  create(modelId?: string): LanguageModelV3;
}

/** The rule a provider's missing setting breaks. */
export const PROVIDER_SETTINGS_RULE = "provider.settings";

/**
 * A provider was selected but lacks a setting: a {@link DefinitionError} of rule
 * `provider.settings` whose message names the setting (never its value).
 */
export function providerNotConfigured(provider: string, message: string): DefinitionError {
  return new DefinitionError(PROVIDER_SETTINGS_RULE, `LLM provider "${provider}" is not configured: ${message}`, {
    subject: provider,
    issues: [{ path: "/llmProvider", message }],
  });
}
