import { afterEach, describe, expect, it } from "vitest";
import { ProviderRegistry } from "../../src/agent/providers/registry.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { ofType, runToEnd, types } from "./support.ts";

describe("the scripted demo model (the embedded default)", () => {
  let rt: TestRuntime | undefined;
  afterEach(async () => {
    await rt?.dispose();
    rt = undefined;
  });

  it("should be the default provider unless TAI_LLM_BASE_URL is set", () => {
    expect(new ProviderRegistry({}).defaultName()).toBe("scripted");
    expect(new ProviderRegistry({ TAI_LLM_BASE_URL: "http://127.0.0.1:9/v1", TAI_LLM_MODEL: "m" }).defaultName()).toBe(
      "openai-compatible",
    );
  });

  it("should stream a real-looking run that calls the demo tools a request names, then answers from their results", async () => {
    rt = await testRuntime();
    const { log } = await runToEnd(rt.agents, {
      userMessage: "What is 12 * 7, and what time is it in Europe/Paris?",
      toolNames: ["calculate", "clock", "echo"],
      llmProvider: "scripted",
    });
    const kinds = types(log);
    expect(kinds[0]).toBe("reasoning_step");
    expect(kinds.slice(-2)).toEqual(["run_usage", "message_final"]);
    expect(ofType(log, "tool_call_step").map((c) => [c.tool, c.args])).toEqual([
      ["calculate", { op: "multiply", a: 12, b: 7 }],
      ["clock", { timeZone: "Europe/Paris" }],
    ]);
    expect(ofType(log, "tool_result_step").every((r) => !r.isError)).toBe(true);
    expect(ofType(log, "message_final")[0].text).toMatch(
      /^Here is what I found:\n- 12 × 7 = 84\n- In Europe\/Paris it is .+\.$/,
    );
    expect(ofType(log, "message_delta").length).toBeGreaterThan(5);
  });

  it("should store a value in one run and recall it in the next run on the same thread", async () => {
    rt = await testRuntime();
    const tools = ["kv_put", "kv_get"];
    const first = await runToEnd(rt.agents, {
      userMessage: "Remember colour is teal",
      toolNames: tools,
      llmProvider: "scripted",
    });
    expect(ofType(first.log, "message_final")[0].text).toContain('I stored "colour"');
    const second = await runToEnd(rt.agents, {
      threadId: first.started.threadId,
      userMessage: "Recall colour",
      toolNames: tools,
      llmProvider: "scripted",
    });
    expect(ofType(second.log, "message_final")[0].text).toContain('"colour" is "teal"');
  });

  it("should give a structured answer that matches responseFormat", async () => {
    rt = await testRuntime();
    const responseFormat = {
      type: "object",
      properties: { product: { type: "number" }, summary: { type: "string" } },
      required: ["product", "summary"],
    };
    const { log } = await runToEnd(rt.agents, {
      userMessage: "What is 6 * 9?",
      toolNames: ["calculate"],
      responseFormat,
      llmProvider: "scripted",
    });
    expect(ofType(log, "structured_final")[0].data).toMatchObject({
      product: 54,
      summary: expect.stringContaining("6 × 9 = 54"),
    });
  });

  it("should answer directly, naming its tools, when none fits the request", async () => {
    rt = await testRuntime();
    const { log } = await runToEnd(rt.agents, {
      userMessage: "Tell me a story",
      toolNames: ["calculate"],
      llmProvider: "scripted",
    });
    expect(types(log).filter((t) => t !== "message_delta")).toEqual(["run_usage", "message_final"]);
    expect(ofType(log, "message_final")[0].text).toContain("None of my tools (calculate, ask_caller) fits that");
  });
});
