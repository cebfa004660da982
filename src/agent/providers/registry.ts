import type { LanguageModelV3 } from "@ai-sdk/provider";
import { isDefinitionError } from "../../definition-error.ts";
import { ApiError, type Issue } from "../../errors.ts";
import { zodIssues } from "../../validation/declaration.ts";
import { anthropicProvider } from "./anthropic.ts";
import { demoScript } from "./demo-script.ts";
import { openAICompatibleProvider } from "./openai-compatible.ts";
import { ScriptedModel } from "./scripted-model.ts";
import { LlmKwargsSchema, type CallSettings } from "./call-settings.ts";
import { PROVIDER_SETTINGS_RULE, type ProviderDefinition } from "./provider.ts";

export type { CallSettings } from "./call-settings.ts";

/** A model chosen for one run. */
export interface ResolvedModel {
  provider: string;
  model: LanguageModelV3;
  settings: CallSettings;
}

/** What the registry reads from an app handle: its `app.llmProvider` registrations. */
export interface ProviderRegistrations {
  readonly llmProviders: ReadonlyMap<string, ProviderDefinition>;
}

/**
 * The plain provider registry (pi-mono style): names → factories. The default is the
 * provider `TAI_LLM_PROVIDER` names when set, else the OpenAI-compatible endpoint when
 * `TAI_LLM_BASE_URL` is set, else the scripted demo model, so the embedded default
 * streams real-looking runs with no network. Providers registered on the app handles
 * (`app.llmProvider`) are read at use time; a later one's name overrides an earlier one's
 * and the built-ins'.
 */
export class ProviderRegistry {
  private readonly own = new Map<string, ProviderDefinition>();

  constructor(
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly apps: () => readonly ProviderRegistrations[] = () => [],
  ) {
    this.register(openAICompatibleProvider(env));
    this.register(anthropicProvider(env));
    this.register({
      name: "scripted",
      description:
        "The deterministic demo model (no network): calls the demo tools a request names, then answers from their results.",
      configured: () => true,
      create: (modelId) =>
        new ScriptedModel(demoScript, {
          modelId: modelId ?? "tai42-demo",
          chunkDelayMs: Number(env.TAI_SCRIPTED_DELAY_MS ?? 15),
        }),
    });
  }

  /** Adds or replaces a provider (tests register scripted ones). */
  register(definition: ProviderDefinition): void {
    this.own.set(definition.name, definition);
  }

  list(): ProviderDefinition[] {
    return [...this.providers.values()];
  }

  /** The provider a run uses when it names none. */
  defaultName(): string {
    const named = this.env.TAI_LLM_PROVIDER?.trim();
    if (named) return named;
    return this.own.get("openai-compatible")?.configured() ? "openai-compatible" : "scripted";
  }

  private get providers(): Map<string, ProviderDefinition> {
    return new Map([...this.own, ...this.apps().flatMap((a) => [...a.llmProviders])]);
  }

  /** Checks a run's choice without creating a model; throws BAD_USER_INPUT with every issue. */
  check(
    name: string | undefined,
    kwargs: Record<string, unknown> | undefined,
  ): { provider: string; modelId?: string; settings: CallSettings } {
    const issues: Issue[] = [];
    const provider = name ?? this.defaultName();
    const known = this.providers;
    if (!known.has(provider))
      issues.push({
        path: "/llmProvider",
        message: `no LLM provider named "${provider}"${name === undefined ? " (the default, from TAI_LLM_PROVIDER)" : ""} (known: ${[...known.keys()].join(", ")})`,
      });
    const parsed = LlmKwargsSchema.safeParse(kwargs ?? {});
    if (!parsed.success) issues.push(...zodIssues(parsed.error, "/llmKwargs"));
    const { model: modelId, ...settings } = parsed.success ? (parsed.data as CallSettings & { model?: string }) : {};
    if (issues.length)
      throw ApiError.badInput(
        `invalid LLM settings: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
        issues,
      );
    return { provider, modelId, settings: settings as CallSettings };
  }

  /** Creates the model for a run; a missing provider setting is BAD_USER_INPUT naming it. */
  resolve(name: string | undefined, kwargs: Record<string, unknown> | undefined): ResolvedModel {
    const { provider, modelId, settings } = this.check(name, kwargs);
    try {
      return { provider, model: this.providers.get(provider)!.create(modelId), settings };
    } catch (e) {
      if (isDefinitionError(e, PROVIDER_SETTINGS_RULE))
        throw ApiError.badInput(e.message, [{ path: "/llmProvider", message: e.message }]);
      throw e;
    }
  }
}

/**
 * What is wrong with the default provider, said once at startup: `TAI_LLM_PROVIDER` names
 * no provider the registry (built-ins and the loaded modules') knows. Null when it does or
 * is unset. Each run that names none is still refused on its own (BAD_USER_INPUT).
 */
export function unknownDefaultProvider(registry: ProviderRegistry): string | null {
  const name = registry.defaultName();
  const known = registry.list().map((p) => p.name);
  if (known.includes(name)) return null;
  return `TAI_LLM_PROVIDER names no LLM provider "${name}" (known: ${known.join(", ")}): every agent run that names no llmProvider will be refused`;
}
