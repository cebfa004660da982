import { describe, expect, it } from "vitest";
import { ProviderRegistry } from "../../../src/agent/providers/registry.ts";
import { ScriptedModel } from "../../../src/agent/providers/scripted-model.ts";

/** The paths of a BAD_USER_INPUT refusal. */
function refusedAt(f: () => unknown): string[] {
  try {
    f();
  } catch (e) {
    expect(e).toMatchObject({ code: "BAD_USER_INPUT" });
    return ((e as { issues: { path: string }[] }).issues ?? []).map((i) => i.path);
  }
  throw new Error("expected a refusal");
}

describe("the LLM provider registry", () => {
  it("should list the built-in providers, each saying whether its settings are present", () => {
    const registry = new ProviderRegistry({ ANTHROPIC_API_KEY: "k" });
    expect(registry.list().map((p) => [p.name, p.configured()])).toEqual([
      ["openai-compatible", false],
      ["anthropic", true],
      ["scripted", true],
    ]);
  });

  it("should let a registered provider replace one of the same name", () => {
    const registry = new ProviderRegistry({});
    const model = new ScriptedModel([{ text: "mine" }]);
    registry.register({ name: "scripted", description: "replaced", configured: () => true, create: () => model });
    expect(registry.list().filter((p) => p.name === "scripted")).toHaveLength(1);
    expect(registry.resolve("scripted", undefined).model).toBe(model);
  });

  it("should resolve no name to the default provider, with no settings", () => {
    const resolved = new ProviderRegistry({}).resolve(undefined, undefined);
    expect(resolved.provider).toBe("scripted");
    expect(resolved.settings).toEqual({});
    expect(resolved.model.modelId).toBe("tai42-demo");
  });

  it("should create the model a run names with llmKwargs.model", () => {
    expect(new ProviderRegistry({}).resolve("scripted", { model: "custom-demo" }).model.modelId).toBe("custom-demo");
  });

  it("should pass the numeric settings, stop sequences and provider options through", () => {
    const kwargs = {
      temperature: 0.2,
      maxOutputTokens: 100,
      topP: 1,
      topK: 5,
      seed: -3,
      presencePenalty: -2,
      frequencyPenalty: 2,
      maxRetries: 0,
      stopSequences: ["END"],
      providerOptions: { openai: { reasoningEffort: "low" } },
    };
    const { model, ...rest } = kwargs as Record<string, unknown>;
    expect(model).toBeUndefined();
    expect(new ProviderRegistry({}).check("scripted", kwargs)).toEqual({
      provider: "scripted",
      modelId: undefined,
      settings: rest,
    });
  });

  it("should refuse an unknown provider at /llmProvider, naming the known ones", () => {
    try {
      new ProviderRegistry({}).check("nope", undefined);
      throw new Error("expected a refusal");
    } catch (e) {
      const [issue] = (e as { issues: { path: string; message: string }[] }).issues;
      expect(issue.path).toBe("/llmProvider");
      expect(issue.message).toContain("openai-compatible, anthropic, scripted");
    }
  });

  it("should refuse every out-of-range, non-integer or mistyped setting, each at its path", () => {
    const paths = refusedAt(() =>
      new ProviderRegistry({}).check("scripted", {
        temperature: 3,
        maxOutputTokens: 1.5,
        topP: "1",
        topK: 0,
        seed: 2 ** 31,
        maxRetries: 11,
        stopSequences: [1],
        providerOptions: [],
        model: " ",
        nucleus: 1,
      }),
    );
    expect(paths.sort()).toEqual(
      [
        "temperature",
        "maxOutputTokens",
        "topP",
        "topK",
        "seed",
        "maxRetries",
        "stopSequences/0",
        "providerOptions",
        "model",
        "nucleus",
      ]
        .map((k) => `/llmKwargs/${k}`)
        .sort(),
    );
  });

  it("should accept each numeric setting at both ends of its range", () => {
    const registry = new ProviderRegistry({});
    const ends = {
      temperature: [0, 2],
      maxOutputTokens: [1, 1_000_000],
      topP: [0, 1],
      topK: [1, 1000],
      seed: [-(2 ** 31), 2 ** 31 - 1],
      presencePenalty: [-2, 2],
      frequencyPenalty: [-2, 2],
      maxRetries: [0, 10],
    };
    for (const [k, [lo, hi]] of Object.entries(ends)) {
      expect(registry.check("scripted", { [k]: lo }).settings).toEqual({ [k]: lo });
      expect(registry.check("scripted", { [k]: hi }).settings).toEqual({ [k]: hi });
    }
  });

  it("should refuse a provider that lacks a setting at /llmProvider, naming the setting and never its value", () => {
    expect(refusedAt(() => new ProviderRegistry({}).resolve("anthropic", undefined))).toEqual(["/llmProvider"]);
    expect(() => new ProviderRegistry({}).resolve("anthropic", undefined)).toThrow(/ANTHROPIC_API_KEY/);
    expect(() =>
      new ProviderRegistry({ TAI_LLM_API_KEY: "sk-hidden" }).resolve("openai-compatible", undefined),
    ).toThrow(/TAI_LLM_BASE_URL/);
    expect(() =>
      new ProviderRegistry({ TAI_LLM_BASE_URL: "http://127.0.0.1:9/v1", TAI_LLM_API_KEY: "sk-hidden" }).resolve(
        "openai-compatible",
        undefined,
      ),
    ).toThrow(/TAI_LLM_MODEL/);
    try {
      new ProviderRegistry({ TAI_LLM_API_KEY: "sk-hidden" }).resolve("openai-compatible", undefined);
    } catch (e) {
      expect(JSON.stringify(e) + String(e)).not.toContain("sk-hidden");
    }
  });

  it("should create a configured remote provider's model without calling the network", () => {
    const registry = new ProviderRegistry({
      TAI_LLM_BASE_URL: "http://127.0.0.1:9/v1",
      TAI_LLM_MODEL: "m-1",
      ANTHROPIC_API_KEY: "k",
    });
    expect(registry.resolve(undefined, undefined)).toMatchObject({
      provider: "openai-compatible",
      model: { modelId: "m-1" },
    });
    expect(registry.resolve("anthropic", { model: "claude-x" }).model.modelId).toBe("claude-x");
  });

  it("should let a provider's unexpected failure through as it is", () => {
    const registry = new ProviderRegistry({});
    registry.register({
      name: "broken",
      description: "",
      configured: () => true,
      create: () => {
        throw new RangeError("bug");
      },
    });
    expect(() => registry.resolve("broken", undefined)).toThrow(RangeError);
  });
});
