import { describe, expect, it } from "vitest";
import { DefinitionError } from "../../src/definition-error.ts";
import { ApiError } from "../../src/errors.ts";
import { anthropicProvider } from "../../src/agent/providers/anthropic.ts";
import { openAICompatibleProvider } from "../../src/agent/providers/openai-compatible.ts";
import { PROVIDER_SETTINGS_RULE } from "../../src/agent/providers/provider.ts";
import { ProviderRegistry } from "../../src/agent/providers/registry.ts";

function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a throw");
}

describe("a provider's missing setting", () => {
  it("should be a DefinitionError of rule provider.settings naming the setting, not its value", () => {
    const e = thrown(() => anthropicProvider({}).create()) as DefinitionError;
    expect(e).toBeInstanceOf(DefinitionError);
    expect(e.rule).toBe(PROVIDER_SETTINGS_RULE);
    expect(e.subject).toBe("anthropic");
    expect(e.message).toBe('LLM provider "anthropic" is not configured: ANTHROPIC_API_KEY is not set');
    expect((thrown(() => openAICompatibleProvider({}).create()) as DefinitionError).rule).toBe(PROVIDER_SETTINGS_RULE);
  });

  it("should reach a run as BAD_USER_INPUT at /llmProvider", () => {
    const e = thrown(() => new ProviderRegistry({}).resolve("anthropic", undefined)) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect(e.code).toBe("BAD_USER_INPUT");
    expect(e.issues).toEqual([{ path: "/llmProvider", message: e.message }]);
    expect(e.message).toContain("ANTHROPIC_API_KEY is not set");
  });
});

describe("llmKwargs: the call settings a run may pass", () => {
  const registry = new ProviderRegistry({});

  it("should keep the model apart from the settings", () => {
    expect(
      registry.check("scripted", {
        model: "m1",
        temperature: 0.5,
        maxOutputTokens: 10,
        stopSequences: ["x"],
        providerOptions: { openai: { a: 1 } },
      }),
    ).toEqual({
      provider: "scripted",
      modelId: "m1",
      settings: { temperature: 0.5, maxOutputTokens: 10, stopSequences: ["x"], providerOptions: { openai: { a: 1 } } },
    });
  });

  it("should name every bad setting and an unknown provider at once", () => {
    const e = thrown(() =>
      registry.check("nope", {
        temperature: 3,
        topK: 1.5,
        model: " ",
        stopSequences: [1],
        providerOptions: [],
        colour: "red",
      }),
    ) as ApiError;
    expect(e.code).toBe("BAD_USER_INPUT");
    expect(e.issues).toEqual([
      { path: "/llmProvider", message: expect.stringContaining('no LLM provider named "nope"') },
      { path: "/llmKwargs/model", message: "must be a non-empty string" },
      { path: "/llmKwargs/temperature", message: "must be a number from 0 to 2" },
      { path: "/llmKwargs/topK", message: "must be an integer from 1 to 1000" },
      { path: "/llmKwargs/stopSequences/0", message: "must be a list of strings" },
      { path: "/llmKwargs/providerOptions", message: "must be an object keyed by provider" },
      {
        path: "/llmKwargs/colour",
        message: expect.stringContaining("is not an llmKwargs setting (model, temperature"),
      },
    ]);
    expect(e.message).toMatch(/^invalid LLM settings: \/llmProvider: /);
  });
});
