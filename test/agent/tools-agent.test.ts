import { describe, expect, it } from "vitest";
import { as } from "../helpers/runtime.ts";
import type { Span } from "./fixtures.ts";
import { ofType, runToEnd, types, useScript } from "./support.ts";
import { agentRuntimePerTest, resultsSeen } from "./tools-agent-support.ts";

const setup = agentRuntimePerTest();

describe("tool calls", () => {
  it("should run the calls the model asks for through the chokepoint, as the caller, and answer from their results", async () => {
    const r = await setup();
    useScript(r.agents, "s", [
      { toolCalls: [{ toolName: "calculate", input: { op: "multiply", a: 6, b: 7 } }] },
      { text: "It is 42." },
    ]);
    const { started, log } = await runToEnd(r.agents, {
      userMessage: "6 times 7?",
      toolNames: ["calculate"],
      llmProvider: "s",
    });
    expect(types(log)).toEqual([
      "tool_call_step",
      "tool_result_step",
      "message_delta",
      "message_delta",
      "message_delta",
      "run_usage",
      "message_final",
    ]);
    const [call] = ofType(log, "tool_call_step");
    const [result] = ofType(log, "tool_result_step");
    expect(call).toMatchObject({ tool: "calculate", args: { op: "multiply", a: 6, b: 7 }, callId: "call_0_0" });
    expect(result).toMatchObject({ tool: "calculate", callId: "call_0_0", result: { result: 42 }, isError: false });
    expect(ofType(log, "message_final")[0].text).toBe("It is 42.");
    const runs = await r.runs.list({ tool: "calculate" }, 10);
    expect(runs).toEqual([
      expect.objectContaining({ door: "agent", parentRunId: started.runId, callerRole: "USER", status: "SUCCEEDED" }),
    ]);
  });

  it("should give a USER's agent the PERMISSION_DENIED result of a fenced tool without running its body", async () => {
    const r = await setup();
    const model = useScript(r.agents, "s", [
      { toolCalls: [{ toolName: "admin_stats", input: {} }] },
      { text: "I may not." },
    ]);
    const { log } = await runToEnd(
      r.agents,
      { userMessage: "stats", toolNames: ["admin_stats"], llmProvider: "s" },
      as("USER"),
    );
    expect(ofType(log, "tool_result_step")[0]).toMatchObject({ isError: true, result: { kind: "PERMISSION_DENIED" } });
    expect(resultsSeen(model, 1)).toEqual([
      {
        tool: "admin_stats",
        output: { type: "error-json", value: { error: expect.objectContaining({ kind: "PERMISSION_DENIED" }) } },
      },
    ]);
    expect(types(log).at(-1)).toBe("message_final");
  });

  it("should let an ADMIN's agent run the same fenced tool", async () => {
    const r = await setup();
    useScript(r.agents, "s", [{ toolCalls: [{ toolName: "admin_stats", input: {} }] }, { text: "ok" }]);
    const { log } = await runToEnd(
      r.agents,
      { userMessage: "stats", toolNames: ["admin_stats"], llmProvider: "s" },
      as("ADMIN"),
    );
    expect(ofType(log, "tool_result_step")[0]).toMatchObject({ isError: false });
  });

  it("should send invalid arguments back to the model with the full issue list, then run the corrected call", async () => {
    const r = await setup();
    const model = useScript(r.agents, "s", [
      { toolCalls: [{ toolName: "calculate", input: { op: "modulo", a: "six" } }] },
      { toolCalls: [{ toolName: "calculate", input: { op: "add", a: 1, b: 2 } }] },
      { text: "3" },
    ]);
    const { log } = await runToEnd(r.agents, { userMessage: "?", toolNames: ["calculate"], llmProvider: "s" });
    const [bad, good] = ofType(log, "tool_result_step");
    expect(bad).toMatchObject({ isError: true, result: { kind: "INVALID_INPUT" } });
    const seen = resultsSeen(model, 1)[0].output.value as { error: { kind: string; issues: { path: string }[] } };
    expect(seen.error.kind).toBe("INVALID_INPUT");
    expect(seen.error.issues.map((i) => i.path).sort()).toEqual(["/a", "/b", "/op"]);
    expect(good).toMatchObject({ isError: false, result: { result: 3 } });
    expect(types(log).at(-1)).toBe("message_final");
  });

  it("should answer a call to an unknown tool or with unparseable arguments with an error result", async () => {
    const r = await setup();
    const model = useScript(r.agents, "s", [
      {
        toolCalls: [
          { toolName: "nope", input: {} },
          { toolName: "calculate", input: '{"op":"add",' },
        ],
      },
      { text: "sorry" },
    ]);
    const { log } = await runToEnd(r.agents, { userMessage: "?", toolNames: ["calculate"], llmProvider: "s" });
    const results = ofType(log, "tool_result_step");
    expect(results.map((x) => [x.tool, x.isError, (x.result as { kind: string }).kind])).toEqual([
      ["nope", true, "NOT_FOUND"],
      ["calculate", true, "INVALID_INPUT"],
    ]);
    expect(JSON.stringify(resultsSeen(model, 1))).toContain("not valid JSON");
    expect(await r.runs.list({ tool: "calculate" }, 10)).toEqual([]);
  });

  it("should reject a start that names unknown tools, listing each, and store nothing", async () => {
    const r = await setup();
    await expect(
      r.agents.start({
        options: { userMessage: "x", toolNames: ["calculate", "ghost", "phantom"] },
        caller: as("USER"),
      }),
    ).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [
        { path: "/toolNames/1", message: 'no tool named "ghost" is registered' },
        { path: "/toolNames/2", message: 'no tool named "phantom" is registered' },
      ],
    });
    expect(await r.db.agentRun.count()).toBe(0);
  });
});

describe("execution modes", () => {
  it("should run a turn's parallel calls concurrently and still emit their results in the order asked", async () => {
    const spans: Span[] = [];
    const r = await setup(spans);
    useScript(r.agents, "s", [
      // "first" ends only once "second" has: asked one after the other, it would wait out its 10 s and end first.
      {
        toolCalls: [
          { toolName: "slow", input: { label: "first", ms: 10_000, until: "second" } },
          { toolName: "slow", input: { label: "second", ms: 0 } },
        ],
      },
      { text: "done" },
    ]);
    const { log } = await runToEnd(r.agents, { userMessage: "go", toolNames: ["slow"], llmProvider: "s" });
    const first = spans.find((s) => s.label === "first")!;
    const second = spans.find((s) => s.label === "second")!;
    expect(second.start).toBeLessThan(first.end);
    expect(second.end).toBeLessThanOrEqual(first.end);
    expect(types(log).slice(0, 4)).toEqual([
      "tool_call_step",
      "tool_call_step",
      "tool_result_step",
      "tool_result_step",
    ]);
    expect(ofType(log, "tool_result_step").map((x) => (x.result as { label: string }).label)).toEqual([
      "first",
      "second",
    ]);
  });

  it("should never overlap two sequential calls the model asked for in one turn", async () => {
    const spans: Span[] = [];
    const r = await setup(spans);
    useScript(r.agents, "s", [
      {
        toolCalls: [
          { toolName: "serial", input: { label: "a", ms: 150 } },
          { toolName: "serial", input: { label: "b", ms: 10 } },
          { toolName: "slow", input: { label: "c", ms: 10 } },
        ],
      },
      { text: "done" },
    ]);
    const { log } = await runToEnd(r.agents, { userMessage: "go", toolNames: ["serial", "slow"], llmProvider: "s" });
    const [a, b, c] = ["a", "b", "c"].map((l) => spans.find((s) => s.label === l)!);
    expect(b.start).toBeGreaterThanOrEqual(a.end);
    expect(c.start).toBeGreaterThanOrEqual(b.end);
    expect(ofType(log, "tool_result_step").map((x) => (x.result as { label: string }).label)).toEqual(["a", "b", "c"]);
  });

  it("should run parallel calls asked before a sequential one to their end before it starts", async () => {
    const spans: Span[] = [];
    const r = await setup(spans);
    useScript(r.agents, "s", [
      {
        toolCalls: [
          { toolName: "slow", input: { label: "p", ms: 120 } },
          { toolName: "serial", input: { label: "s", ms: 10 } },
        ],
      },
      { text: "done" },
    ]);
    await runToEnd(r.agents, { userMessage: "go", toolNames: ["serial", "slow"], llmProvider: "s" });
    const [p, s] = ["p", "s"].map((l) => spans.find((x) => x.label === l)!);
    expect(s.start).toBeGreaterThanOrEqual(p.end);
  });
});

describe("ending a run", () => {
  it("should end without another model call when every result of a turn says terminate", async () => {
    const r = await setup();
    const model = useScript(r.agents, "s", [{ toolCalls: [{ toolName: "finish", input: { value: "x" } }] }]);
    const { log } = await runToEnd(r.agents, { userMessage: "go", toolNames: ["finish"], llmProvider: "s" });
    expect(types(log)).toEqual(["tool_call_step", "tool_result_step", "run_usage", "structured_final"]);
    expect(ofType(log, "structured_final")[0].data).toEqual({ done: "x" });
    expect(model.seen).toHaveLength(1);
  });

  it("should keep looping when only some results of a turn say terminate", async () => {
    const r = await setup();
    const model = useScript(r.agents, "s", [
      {
        toolCalls: [
          { toolName: "finish", input: { value: "x" } },
          { toolName: "echo", input: { text: "y" } },
        ],
      },
      { text: "more" },
    ]);
    const { log } = await runToEnd(r.agents, { userMessage: "go", toolNames: ["finish", "echo"], llmProvider: "s" });
    expect(types(log).at(-1)).toBe("message_final");
    expect(model.seen).toHaveLength(2);
  });

  it("should validate the answer against responseFormat and end with StructuredFinal", async () => {
    const r = await setup();
    const model = useScript(r.agents, "s", [{ text: '```json\n{"answer": 42}\n```' }]);
    const responseFormat = { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] };
    const { log } = await runToEnd(r.agents, { userMessage: "?", responseFormat, llmProvider: "s" });
    expect(ofType(log, "structured_final")).toEqual([expect.objectContaining({ data: { answer: 42 } })]);
    expect(model.seen[0].responseFormat).toMatchObject({ type: "json", schema: responseFormat });
  });

  it("should send an invalid structured answer back once with its issues, and accept the corrected one", async () => {
    const r = await setup();
    const model = useScript(r.agents, "s", [{ text: '{"answer": "many"}' }, { text: '{"answer": 7}' }]);
    const { log } = await runToEnd(r.agents, {
      userMessage: "?",
      responseFormat: { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] },
      llmProvider: "s",
    });
    expect(types(log).filter((t) => t !== "message_delta")).toEqual(["run_usage", "structured_final"]);
    // The invalid answer streamed live as turn 1; the retry is turn 2, the one the StructuredFinal names.
    const turn = (n: number) =>
      ofType(log, "message_delta")
        .filter((d) => d.turn === n)
        .map((d) => d.text)
        .join("");
    expect(turn(1)).toBe('{"answer": "many"}');
    expect(turn(2)).toBe('{"answer": 7}');
    expect(ofType(log, "structured_final")[0]).toMatchObject({ data: { answer: 7 }, turn: 2 });
    const retry = model.seen[1].prompt.at(-1) as { role: string; content: { text: string }[] };
    expect(retry.role).toBe("user");
    expect(retry.content[0].text).toContain("/answer: must be number");
  });

  it("should fail clearly when the structured answer is invalid twice", async () => {
    const r = await setup();
    useScript(r.agents, "s", [{ text: "not json" }, { text: '{"answer": "x"}' }]);
    const { log } = await runToEnd(r.agents, {
      userMessage: "?",
      responseFormat: { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] },
      llmProvider: "s",
    });
    expect(log.at(-1)).toMatchObject({
      type: "run_failed",
      kind: "UPSTREAM",
      message: "the model's answer did not match responseFormat after one retry: /answer: must be number",
    });
    expect(log.at(-2)?.type).toBe("run_usage");
  });

  it("should fail with TIMEOUT when the recursion limit is reached, without the extra model call", async () => {
    const r = await setup();
    const model = useScript(r.agents, "s", () => ({ toolCalls: [{ toolName: "echo", input: { text: "again" } }] }));
    const { log } = await runToEnd(r.agents, {
      userMessage: "loop",
      toolNames: ["echo"],
      recursionLimit: 3,
      llmProvider: "s",
    });
    expect(log.at(-1)).toMatchObject({
      type: "run_failed",
      kind: "TIMEOUT",
      message: "the agent reached its recursion limit of 3 model calls without a final answer",
    });
    expect(model.seen).toHaveLength(3);
    expect((await r.agents.store.get(log[0].runId))?.status).toBe("FAILED");
  });

  it("should fail with the provider's error when the model call fails", async () => {
    const r = await setup();
    useScript(r.agents, "s", [{ error: "upstream exploded" }]);
    const { log } = await runToEnd(r.agents, { userMessage: "?", llmProvider: "s", llmKwargs: { maxRetries: 0 } });
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      type: "run_failed",
      kind: "UNAVAILABLE",
      message: "the LLM provider failed: HTTP 500 — upstream exploded",
    });
  });
});

describe("what the run streams", () => {
  it("should emit one ReasoningStep per non-blank reasoning block, and none for a blank one", async () => {
    const r = await setup();
    useScript(r.agents, "s", [
      { reasoning: "   ", toolCalls: [{ toolName: "echo", input: { text: "a" } }] },
      { reasoning: "The echo worked, so I answer.", text: "a" },
    ]);
    const { log } = await runToEnd(r.agents, { userMessage: "?", toolNames: ["echo"], llmProvider: "s" });
    expect(ofType(log, "reasoning_step")).toEqual([expect.objectContaining({ text: "The echo worked, so I answer." })]);
  });

  it("should emit RunUsage once, right before the terminal, summing every model call", async () => {
    const r = await setup();
    useScript(r.agents, "s", [
      { toolCalls: [{ toolName: "echo", input: { text: "a" } }], usage: { inputTokens: 10, outputTokens: 3 } },
      { text: "a", usage: { inputTokens: 20, outputTokens: 5 } },
    ]);
    const { log } = await runToEnd(r.agents, { userMessage: "?", toolNames: ["echo"], llmProvider: "s" });
    expect(ofType(log, "run_usage")).toEqual([
      expect.objectContaining({ inputTokens: 30, outputTokens: 8, totalTokens: 38, model: "s-model" }),
    ]);
    expect(types(log).slice(-2)).toEqual(["run_usage", "message_final"]);
  });

  it("should number the events 1..n with exactly one terminal, last", async () => {
    const r = await setup();
    useScript(r.agents, "s", [{ toolCalls: [{ toolName: "echo", input: { text: "a" } }] }, { text: "one two three" }]);
    const { log } = await runToEnd(r.agents, { userMessage: "?", toolNames: ["echo"], llmProvider: "s" });
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
    expect(log.filter((e) => e.final)).toEqual([log.at(-1)]);
  });
});
