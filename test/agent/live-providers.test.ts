import { afterEach, describe, expect, it } from "vitest";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { ofType, runToEnd } from "./support.ts";

/**
 * Real providers, over the network: skipped unless their key is set
 * (TAI_LLM_BASE_URL + TAI_LLM_API_KEY + TAI_LLM_MODEL, or ANTHROPIC_API_KEY).
 */
const PROVIDERS = [
  { name: "openai-compatible", enabled: Boolean(process.env.TAI_LLM_BASE_URL && process.env.TAI_LLM_MODEL) },
  { name: "anthropic", enabled: Boolean(process.env.ANTHROPIC_API_KEY) },
];

describe.each(PROVIDERS)("the live $name provider", ({ name, enabled }) => {
  let rt: TestRuntime | undefined;
  afterEach(async () => {
    await rt?.dispose();
    rt = undefined;
  });

  it.skipIf(!enabled)("should call a demo tool and answer from its result", { timeout: 120_000 }, async () => {
    rt = await testRuntime();
    const { log } = await runToEnd(rt.agents, {
      userMessage: "What is 17 multiplied by 23? Use the calculate tool, then answer with the number.",
      toolNames: ["calculate"],
      llmProvider: name,
    });
    expect(log.at(-1)?.type).toBe("message_final");
    expect(ofType(log, "tool_call_step").some((c) => c.tool === "calculate")).toBe(true);
    expect(ofType(log, "message_final")[0].text.replace(/[,\s]/g, "")).toContain("391");
    expect(ofType(log, "run_usage")[0].inputTokens).toBeGreaterThan(0);
  });
});
