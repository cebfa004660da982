import type { LanguageModelV3 } from "@ai-sdk/provider";
import { DefinitionError } from "../../definition-error.ts";
import type { ProviderDefinition } from "./provider.ts";

/** What `app.llmProvider` takes: an AI SDK language model, or a factory of one per run (given `llmKwargs.model`). */
export type LlmProviderModel = LanguageModelV3 | ((modelId?: string) => LanguageModelV3);

/** Options of `app.llmProvider`. */
export interface LlmProviderOptions {
  /** Shown by the `llmProviders` listing. @default "registered by <module>" */
  description?: string;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

const isModel = (m: unknown): m is LanguageModelV3 =>
  typeof m === "object" &&
  m !== null &&
  (m as LanguageModelV3).specificationVersion === "v3" &&
  typeof (m as LanguageModelV3).doStream === "function";

/**
 * Checks an `app.llmProvider(name, model)` registration and makes its provider definition.
 * Throws a `DefinitionError` of rule `provider.shape` naming the problem: a name that is
 * not `^[A-Za-z0-9_-]{1,64}$`, or a model that is neither a LanguageModelV3 nor a function.
 */
export function registeredProvider(
  name: string,
  model: LlmProviderModel,
  options: LlmProviderOptions = {},
  module = "inline",
): ProviderDefinition {
  if (typeof name !== "string" || !NAME.test(name))
    throw new DefinitionError(
      "provider.shape",
      `app.llmProvider: the name must match ^[A-Za-z0-9_-]{1,64}$ (got ${JSON.stringify(name)})`,
      {
        issues: [{ path: "/name", message: "must match ^[A-Za-z0-9_-]{1,64}$" }],
      },
    );
  if (!isModel(model) && typeof model !== "function")
    throw new DefinitionError(
      "provider.shape",
      `app.llmProvider("${name}"): the model must be an AI SDK LanguageModelV3 (e.g. scriptedModel({ turns })) or a function (modelId?) => model`,
      {
        subject: name,
        issues: [{ path: "/model", message: "must be a LanguageModelV3 or a function (modelId?) => LanguageModelV3" }],
      },
    );
  return {
    name,
    description: options.description ?? `registered by ${module}`,
    configured: () => true,
    create: (modelId) => (typeof model === "function" ? model(modelId) : model),
  };
}
