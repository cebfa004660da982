import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { demoScript, plan } from "../../../src/agent/providers/demo-script.ts";
import type { OfferedTool, ScriptView } from "../../../src/agent/providers/scripted-model.ts";

const offer = (...names: string[]): OfferedTool[] =>
  names.map((name) => ({ name, description: name, inputSchema: { type: "object" } }));
const DEMO = offer("calculate", "clock", "kv_put", "kv_get", "echo", "sleep", "admin_stats", "ask_caller");
const user = (text: string): LanguageModelV3Prompt[number] => ({ role: "user", content: [{ type: "text", text }] });

/** A prompt where the model called `calls` after `text` and got `results` (by call id order). */
function answered(
  text: string,
  calls: { tool: string; args: Record<string, unknown>; output: { type: string; value: unknown } }[],
): LanguageModelV3Prompt {
  return [
    user(text),
    {
      role: "assistant",
      content: calls.map((c, i) => ({
        type: "tool-call" as const,
        toolCallId: `c${i}`,
        toolName: c.tool,
        input: c.args,
      })),
    },
    {
      role: "tool",
      content: calls.map((c, i) => ({
        type: "tool-result" as const,
        toolCallId: `c${i}`,
        toolName: c.tool,
        output: c.output as never,
      })),
    },
  ];
}

const view = (
  prompt: LanguageModelV3Prompt,
  tools = DEMO,
  responseFormat: Record<string, unknown> | null = null,
): ScriptView => ({ prompt, tools, responseFormat, call: 0 });

describe("plan: the calls the demo model makes for a request", () => {
  it("should call calculate for each arithmetic phrase, in the order written, with symbols and words", () => {
    expect(plan("What is 3 plus 4 and 10 / 2 and 2 to the power of 8?", DEMO)).toEqual([
      { toolName: "calculate", input: { op: "add", a: 3, b: 4 } },
      { toolName: "calculate", input: { op: "divide", a: 10, b: 2 } },
      { toolName: "calculate", input: { op: "power", a: 2, b: 8 } },
    ]);
    expect(plan("-1.5 times 4", DEMO)).toEqual([{ toolName: "calculate", input: { op: "multiply", a: -1.5, b: 4 } }]);
  });

  it("should call clock for a time question, with the zone it names", () => {
    expect(plan("what time is it?", DEMO)).toEqual([{ toolName: "clock", input: {} }]);
    expect(plan("the date in America/New_York please", DEMO)).toEqual([
      { toolName: "clock", input: { timeZone: "America/New_York" } },
    ]);
  });

  it("should store, recall, echo, sleep, report stats and ask the caller when the request says so", () => {
    expect(plan("remember colour is blue", DEMO)).toEqual([
      { toolName: "kv_put", input: { key: "colour", value: "blue" } },
    ]);
    expect(plan("recall colour", DEMO)).toEqual([{ toolName: "kv_get", input: { key: "colour" } }]);
    expect(plan("echo hello world", DEMO)).toEqual([{ toolName: "echo", input: { text: "hello world" } }]);
    expect(plan("wait for 2 s", DEMO)).toEqual([{ toolName: "sleep", input: { seconds: 2 } }]);
    expect(plan("show me the stats", DEMO)).toEqual([{ toolName: "admin_stats", input: {} }]);
    expect(plan("ask me about the budget.", DEMO)).toEqual([
      { toolName: "ask_caller", input: { question: "the budget?" } },
    ]);
  });

  it("should ask what to do next when the request only says ask me", () => {
    expect(plan("ask me", DEMO)).toEqual([{ toolName: "ask_caller", input: { question: "What should I do next?" } }]);
  });

  it("should call only tools that are offered", () => {
    expect(plan("what is 2 + 2 at this time?", offer("clock"))).toEqual([{ toolName: "clock", input: {} }]);
    expect(plan("echo hi", [])).toEqual([]);
  });

  it("should call a sub-agent named in the text with the whole request as its task, once", () => {
    const researcher: OfferedTool = {
      name: "researcher",
      description: "Researches.",
      inputSchema: { type: "object", properties: { task: { type: "string" } } },
    };
    const text = "researcher, find bees; researcher again";
    expect(plan(text, [researcher])).toEqual([{ toolName: "researcher", input: { task: text } }]);
    expect(plan("researcher go", [{ ...researcher, inputSchema: { type: "object" } }])).toEqual([]);
  });
});

describe("demoScript: one turn of the demo model", () => {
  it("should announce its calls with reasoning and a short text when the request names its tools", () => {
    const turn = demoScript(view([user("echo hi")]));
    expect(turn.text).toBe("Let me check that.");
    expect(turn.reasoning).toBe('The request is "echo hi". I can answer it with echo, so I will call it first.');
    expect(turn.toolCalls).toEqual([{ toolName: "echo", input: { text: "hi" } }]);
    expect(demoScript(view([user("1+1 and 2+2")])).reasoning).toContain("so I will call them (2 calls) first");
  });

  it("should answer directly, naming its tools, when no tool fits, and say so when it has none", () => {
    expect(demoScript(view([user("hello")], offer("echo"))).text).toContain("None of my tools (echo) fits that");
    expect(demoScript(view([user("hello")], [])).text).toContain("I have no tools in this run");
  });

  it("should answer from the results in words, one line per call", () => {
    const prompt = answered("compute and store", [
      { tool: "calculate", args: { op: "multiply", a: 6, b: 7 }, output: { type: "json", value: { result: 42 } } },
      { tool: "kv_put", args: { key: "k" }, output: { type: "json", value: { ok: true } } },
      { tool: "kv_get", args: { key: "k" }, output: { type: "json", value: { value: "v" } } },
      { tool: "echo", args: {}, output: { type: "text", value: "hey" } },
      { tool: "clock", args: {}, output: { type: "json", value: { utc: "2026-01-01T00:00:00Z" } } },
      { tool: "other", args: {}, output: { type: "text", value: "raw" } },
    ]);
    expect(demoScript(view(prompt)).text).toBe(
      [
        "Here is what I found:",
        "- 6 × 7 = 42",
        '- I stored "k".',
        '- "k" is "v".',
        "- The echo says: hey",
        "- It is 2026-01-01T00:00:00Z (UTC).",
        "- other: raw",
      ].join("\n"),
    );
  });

  it("should report a failed call with its kind and message", () => {
    const prompt = answered("x", [
      {
        tool: "calculate",
        args: {},
        output: { type: "error-json", value: { error: { kind: "INVALID_INPUT", message: "b must not be 0" } } },
      },
    ]);
    expect(demoScript(view(prompt)).text).toBe(
      "Here is what I found:\n- calculate failed (INVALID_INPUT): b must not be 0",
    );
  });

  it("should read only the results after the last user message", () => {
    const prompt = [
      ...answered("old", [{ tool: "echo", args: {}, output: { type: "text", value: "old" } }]),
      user("echo new"),
    ];
    expect(demoScript(view(prompt)).toolCalls).toEqual([{ toolName: "echo", input: { text: "new" } }]);
  });

  it("should answer a structured request with a value that fits the schema, filled from the results", () => {
    const schema = {
      type: "object",
      properties: {
        total: { type: "integer" },
        ratio: { type: "number" },
        ok: { type: "boolean" },
        label: { type: "string" },
        mode: { enum: ["fast", "slow"] },
        fixed: { const: 7 },
        none: { type: "null" },
        tags: { type: "array", minItems: 2, items: { type: "string" } },
        empty: { type: "array" },
      },
    };
    const prompt = answered("go", [
      { tool: "calculate", args: { op: "add", a: 1.5, b: 1 }, output: { type: "json", value: { result: 2.5 } } },
    ]);
    const value = JSON.parse(demoScript(view(prompt, DEMO, schema)).text!);
    expect(value).toEqual({
      total: 3,
      ratio: 2.5,
      ok: true,
      label: "- 1.5 + 1 = 2.5",
      mode: "fast",
      fixed: 7,
      none: null,
      tags: ["- 1.5 + 1 = 2.5", "- 1.5 + 1 = 2.5"],
      empty: [],
    });
  });

  it("should call tools first on a structured request that names them, then answer with the schema", () => {
    const turn = demoScript(view([user("echo hi")], DEMO, { type: "string" }));
    expect(turn.toolCalls).toEqual([{ toolName: "echo", input: { text: "hi" } }]);
    expect(turn.text).toBeUndefined();
    expect(JSON.parse(demoScript(view([user("just talk")], DEMO, { type: "string" })).text!)).toBe("just talk");
  });

  it("should give the same turn for the same view", () => {
    const v = view([user("what is 2 * 3 and the time in Europe/Paris?")]);
    expect(demoScript(v)).toEqual(demoScript(v));
  });
});
