import type { LanguageModelV3 } from "@ai-sdk/provider";
import { ApiError, type Issue } from "../../errors.ts";
import { anthropicProvider } from "./anthropic.ts";
import { demoScript } from "./demo-script.ts";
import { openAICompatibleProvider } from "./openai-compatible.ts";
import { ScriptedModel } from "./scripted-model.ts";

/** One LLM provider: a name and a factory of AI SDK language models. */
export interface ProviderDefinition {
  name: string;
  description: string;
  /** Whether its settings (env) are present. */
  configured(): boolean;
  /** Contract: throws {@link ProviderConfigError} when a setting is missing; never calls the network. */
  create(modelId?: string): LanguageModelV3;
}

/** A provider was selected but lacks a setting; the message names it (never its value). */
export class ProviderConfigError extends Error {
  constructor(provider: string, message: string) {
    super(`LLM provider "${provider}" is not configured: ${message}`);
    this.name = "ProviderConfigError";
  }
}

/** Per-run tuning the AI SDK applies to each model call (`llmKwargs`). */
export interface CallSettings {
  temperature?: number;
  maxOutputTokens?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  stopSequences?: string[];
  /** The SDK's own retries of a failed model call (429, 5xx). @default 2 */
  maxRetries?: number;
  /** Provider-specific options, passed through (e.g. `{ openai: { reasoningEffort } }`). */
  providerOptions?: Record<string, Record<string, unknown>>;
}

/** A model chosen for one run. */
export interface ResolvedModel {
  provider: string;
  model: LanguageModelV3;
  settings: CallSettings;
}

const NUMERIC: Record<string, [number, number, boolean]> = {
  temperature: [0, 2, false],
  maxOutputTokens: [1, 1_000_000, true],
  topP: [0, 1, false],
  topK: [1, 1000, true],
  seed: [-(2 ** 31), 2 ** 31 - 1, true],
  presencePenalty: [-2, 2, false],
  frequencyPenalty: [-2, 2, false],
  maxRetries: [0, 10, true],
};

/**
 * The plain provider registry (pi-mono style): names → factories. The default is the
 * OpenAI-compatible endpoint when `TAI_LLM_BASE_URL` is set, else the scripted demo
 * model, so the embedded default streams real-looking runs with no network.
 */
export class ProviderRegistry {
  private readonly providers = new Map<string, ProviderDefinition>();

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.register(openAICompatibleProvider(env));
    this.register(anthropicProvider(env));
    this.register({
      name: "scripted",
      description: "The deterministic demo model (no network): calls the demo tools a request names, then answers from their results.",
      configured: () => true,
      create: (modelId) => new ScriptedModel(demoScript, { modelId: modelId ?? "tai42-demo", chunkDelayMs: Number(env.TAI_SCRIPTED_DELAY_MS ?? 15) }),
    });
  }

  /** Adds or replaces a provider (tests register scripted ones). */
  register(definition: ProviderDefinition): void {
    this.providers.set(definition.name, definition);
  }

  list(): ProviderDefinition[] {
    return [...this.providers.values()];
  }

  /** The provider a run uses when it names none. */
  defaultName(): string {
    return this.providers.get("openai-compatible")?.configured() ? "openai-compatible" : "scripted";
  }

  /** Checks a run's choice without creating a model; throws BAD_USER_INPUT with every issue. */
  check(name: string | undefined, kwargs: Record<string, unknown> | undefined): { provider: string; modelId?: string; settings: CallSettings } {
    const issues: Issue[] = [];
    const provider = name ?? this.defaultName();
    if (!this.providers.has(provider)) issues.push({ path: "/llmProvider", message: `no LLM provider named "${provider}" (known: ${[...this.providers.keys()].join(", ")})` });
    const settings: CallSettings = {};
    let modelId: string | undefined;
    for (const [k, v] of Object.entries(kwargs ?? {})) {
      const path = `/llmKwargs/${k}`;
      if (k === "model") {
        if (typeof v === "string" && v.trim()) modelId = v;
        else issues.push({ path, message: "must be a non-empty string" });
      } else if (k in NUMERIC) {
        const [min, max, int] = NUMERIC[k];
        if (typeof v !== "number" || v < min || v > max || (int && !Number.isInteger(v))) issues.push({ path, message: `must be ${int ? "an integer" : "a number"} from ${min} to ${max}` });
        else (settings as Record<string, unknown>)[k] = v;
      } else if (k === "stopSequences") {
        if (Array.isArray(v) && v.every((s) => typeof s === "string")) settings.stopSequences = v as string[];
        else issues.push({ path, message: "must be a list of strings" });
      } else if (k === "providerOptions") {
        if (v && typeof v === "object" && !Array.isArray(v)) settings.providerOptions = v as CallSettings["providerOptions"];
        else issues.push({ path, message: "must be an object keyed by provider" });
      } else issues.push({ path, message: `is not an llmKwargs setting (model, ${[...Object.keys(NUMERIC), "stopSequences", "providerOptions"].join(", ")})` });
    }
    if (issues.length) throw ApiError.badInput(`invalid LLM settings: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`, issues);
    return { provider, modelId, settings };
  }

  /** Creates the model for a run; a missing provider setting is BAD_USER_INPUT naming it. */
  resolve(name: string | undefined, kwargs: Record<string, unknown> | undefined): ResolvedModel {
    const { provider, modelId, settings } = this.check(name, kwargs);
    try {
      return { provider, model: this.providers.get(provider)!.create(modelId), settings };
    } catch (e) {
      if (e instanceof ProviderConfigError) throw ApiError.badInput(e.message, [{ path: "/llmProvider", message: e.message }]);
      throw e;
    }
  }
}
