import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { generateText, streamText } from "ai";
import { describe, expect, it } from "vitest";
import { ScriptedModel, wordChunks, type ScriptView } from "../../../src/agent/providers/scripted-model.ts";

const ask = (text: string, extra: Partial<LanguageModelV3CallOptions> = {}): LanguageModelV3CallOptions => ({
  prompt: [{ role: "user", content: [{ type: "text", text }] }],
  ...extra,
});

async function parts(model: ScriptedModel, options = ask("hi")): Promise<LanguageModelV3StreamPart[]> {
  const { stream } = await model.doStream(options);
  const out: LanguageModelV3StreamPart[] = [];
  for await (const p of stream as unknown as AsyncIterable<LanguageModelV3StreamPart>) out.push(p);
  return out;
}

describe("wordChunks", () => {
  it("should cut text into word-sized chunks that concatenate back to it", () => {
    for (const text of ["The answer is 42.", "  leading and trailing  ", "one", "multi\nline\ttext"]) {
      const chunks = wordChunks(text);
      expect(chunks.join("")).toBe(text);
      expect(chunks.every((c) => c.trim().split(/\s+/).length === 1)).toBe(true);
    }
  });

  it("should give no chunk for empty text and the whole text when it is only spaces", () => {
    expect(wordChunks("")).toEqual([]);
    expect(wordChunks("   ")).toEqual(["   "]);
  });
});

describe("ScriptedModel: a deterministic LanguageModelV3", () => {
  it("should stream reasoning and text word by word between their start and end, then finish with stop", async () => {
    const got = await parts(new ScriptedModel([{ reasoning: "Think first.", text: "It is 42." }], { modelId: "m-7" }));
    expect(got.map((p) => p.type)).toEqual([
      "stream-start",
      "response-metadata",
      "reasoning-start",
      "reasoning-delta",
      "reasoning-delta",
      "reasoning-end",
      "text-start",
      "text-delta",
      "text-delta",
      "text-delta",
      "text-end",
      "finish",
    ]);
    expect(got[1]).toMatchObject({ modelId: "m-7" });
    const text = got.flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join("");
    expect(text).toBe("It is 42.");
    expect(got.at(-1)).toMatchObject({ finishReason: { unified: "stop" } });
  });

  it("should stream a tool call's arguments in two chunks that join to its JSON, with ids per turn and index", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { toolName: "calc", input: { a: 1, b: 2 } },
          { toolName: "echo", input: { text: "x" }, id: "mine" },
        ],
      },
    ]);
    const got = await parts(model);
    const deltas = got.flatMap((p) => (p.type === "tool-input-delta" && p.id === "call_0_0" ? [p.delta] : []));
    expect(deltas).toHaveLength(2);
    expect(JSON.parse(deltas.join(""))).toEqual({ a: 1, b: 2 });
    const calls = got.filter((p) => p.type === "tool-call");
    expect(calls).toEqual([
      { type: "tool-call", toolCallId: "call_0_0", toolName: "calc", input: '{"a":1,"b":2}' },
      { type: "tool-call", toolCallId: "mine", toolName: "echo", input: '{"text":"x"}' },
    ]);
    expect(got.at(-1)).toMatchObject({ finishReason: { unified: "tool-calls" } });
  });

  it("should send a string input as it is, so a script can make a call whose arguments are not JSON", async () => {
    const got = await parts(new ScriptedModel([{ toolCalls: [{ toolName: "calc", input: "{not json" }] }]));
    expect(got.find((p) => p.type === "tool-call")).toMatchObject({ input: "{not json" });
  });

  it("should play a list script one turn per call, and fail a call past its end naming the count", async () => {
    const model = new ScriptedModel([{ text: "one" }, { text: "two" }]);
    expect((await model.doGenerate(ask("a"))).content).toEqual([{ type: "text", text: "one" }]);
    expect((await model.doGenerate(ask("b"))).content).toEqual([{ type: "text", text: "two" }]);
    await expect(model.doGenerate(ask("c"))).rejects.toThrow("the script has no turn 3 (it has 2)");
    expect(model.seen).toHaveLength(3);
  });

  it("should report the script's token counts, or estimate them from the characters", async () => {
    const counted = await new ScriptedModel([{ text: "x", usage: { inputTokens: 11, outputTokens: 22 } }]).doGenerate(
      ask("hi"),
    );
    expect(counted.usage).toMatchObject({ inputTokens: { total: 11 }, outputTokens: { total: 22 } });
    const estimated = await new ScriptedModel([{ text: "12345678" }]).doGenerate(ask("hi"));
    // "12345678" and the empty call list "[]": 10 characters, 3 tokens at 4 per token, rounded up.
    expect(estimated.usage.outputTokens.total).toBe(3);
    expect(estimated.usage.inputTokens.total).toBeGreaterThan(0);
  });

  it("should fail with an upstream HTTP 500 carrying the scripted error, in both call forms", async () => {
    await expect(new ScriptedModel([{ error: "overloaded" }]).doGenerate(ask("hi"))).rejects.toMatchObject({
      message: "overloaded",
      statusCode: 500,
      isRetryable: false,
    });
    const got = await parts(new ScriptedModel([{ error: "overloaded" }]));
    expect(got.map((p) => p.type)).toEqual(["stream-start", "error"]);
    expect((got[1] as { error: { statusCode: number } }).error.statusCode).toBe(500);
  });

  it("should show a script function the prompt, the offered tools, the response format and the call count", async () => {
    const views: ScriptView[] = [];
    const model = new ScriptedModel((view) => (views.push(view), { text: `call ${view.call}` }));
    const tools = [
      { type: "function" as const, name: "echo", description: "Echoes.", inputSchema: { type: "object" as const } },
    ];
    await model.doGenerate(
      ask("first", { tools, responseFormat: { type: "json", schema: { type: "object", required: ["a"] } } }),
    );
    await model.doGenerate(ask("second"));
    expect(views[0]).toMatchObject({
      call: 0,
      tools: [{ name: "echo", description: "Echoes.", inputSchema: { type: "object" } }],
      responseFormat: { type: "object", required: ["a"] },
    });
    expect(views[1]).toMatchObject({ call: 1, tools: [], responseFormat: null });
    expect(views[1].prompt).toEqual(ask("second").prompt);
  });

  it("should stop a stream with the abort reason once its signal is aborted", async () => {
    const controller = new AbortController();
    const { stream } = await new ScriptedModel([{ text: "a b c d e f" }]).doStream(
      ask("hi", { abortSignal: controller.signal }),
    );
    const reader = stream.getReader();
    expect((await reader.read()).value).toMatchObject({ type: "stream-start" });
    controller.abort(new Error("stop now"));
    // A part the stream had already queued may still arrive; the next one pulled is the abort.
    const read: unknown[] = [];
    const failure = await (async () => {
      for (;;) {
        const r = await reader.read();
        if (r.done) return null;
        read.push(r.value);
      }
    })().catch((e: Error) => e);
    expect(failure).toMatchObject({ message: "stop now" });
    expect(read.length).toBeLessThanOrEqual(1);
  });

  it("should work as the model of the AI SDK's generateText and streamText", async () => {
    const generated = await generateText({ model: new ScriptedModel([{ text: "Hello there." }]), prompt: "hi" });
    expect(generated.text).toBe("Hello there.");
    const streamed = streamText({
      model: new ScriptedModel([{ reasoning: "Hmm.", text: "Streamed answer." }]),
      prompt: "hi",
    });
    expect(await streamed.text).toBe("Streamed answer.");
    expect(await streamed.reasoningText).toBe("Hmm.");
  });
});
