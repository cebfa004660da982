import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { Agent, drain, type AgentContext, type AgentRunOptions } from "../../src/agent/agent.ts";
import type { AgentLogEntry, StreamEvent } from "../../src/agent/events.ts";
import { ScriptedModel, type Script, type ScriptView } from "../../src/agent/providers/scripted-model.ts";
import { toolResult } from "../../src/tools/result.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { agentTestApp } from "./fixtures.ts";
import { ofType, runToEnd, types, useScript } from "./support.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

/** The deltas of the run's own agent, as [turn, text] per turn, in order. */
function turnsOf(
  log: AgentLogEntry[],
  type: "message_delta" | "intermediate_delta" = "message_delta",
  agent: string | null = null,
): [number, string][] {
  const out: [number, string][] = [];
  for (const d of ofType(log, type).filter((e) => (e.agent ?? null) === agent)) {
    const last = out.at(-1);
    if (last && last[0] === d.turn) last[1] += d.text;
    else out.push([d.turn!, d.text]);
  }
  return out;
}

/**
 * A scripted model whose stream counts the text parts it has produced so far: the model
 * itself, observed, so a test can tell where the model was when a delta reached a subscriber.
 */
function countingModel(script: Script, chunkDelayMs: number): { model: LanguageModelV3; produced: () => number } {
  const inner = new ScriptedModel(script, { modelId: "counting", chunkDelayMs });
  let produced = 0;
  const model: LanguageModelV3 = {
    specificationVersion: "v3",
    provider: inner.provider,
    modelId: inner.modelId,
    supportedUrls: {},
    doGenerate: (o: LanguageModelV3CallOptions) => inner.doGenerate(o),
    doStream: async (o: LanguageModelV3CallOptions) => {
      const r = await inner.doStream(o);
      const count = new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
        transform(part, controller) {
          if (part.type === "text-delta") produced++;
          controller.enqueue(part);
        },
      });
      return { ...r, stream: r.stream.pipeThrough(count) };
    },
  };
  return { model, produced: () => produced };
}

describe("live answers (docs/agent-stream.md §2.2)", () => {
  it("should deliver the first MessageDelta to a subscriber while the model is still writing the turn", async () => {
    rt = await testRuntime({ app: agentTestApp() });
    const words = "one two three four five six seven eight nine ten";
    const { model, produced } = countingModel([{ text: words }], 60);
    rt.agents.providers.register({
      name: "counting",
      description: "test",
      configured: () => true,
      create: () => model,
    });
    const started = await rt.agents.start({
      options: { userMessage: "count", llmProvider: "counting" },
      caller: as("USER"),
    });
    const seenAt: number[] = [];
    const log: AgentLogEntry[] = [];
    for await (const e of rt.agents.events(started.runId, 0, new AbortController().signal)) {
      if (e.type === "message_delta") seenAt.push(produced());
      log.push(e);
    }
    const total = words.split(" ").length;
    expect(ofType(log, "message_delta")).toHaveLength(total);
    // When the first delta reached the subscriber the model had written only the first chunks of its turn.
    expect(seenAt[0]).toBeLessThan(total);
    expect(seenAt.filter((n) => n < total).length).toBeGreaterThan(total / 2);
    expect(ofType(log, "message_final")[0]).toMatchObject({ text: words, turn: 1 });
  });

  it("should number the turns across a tool turn, and name the answer turn on MessageFinal", async () => {
    rt = await testRuntime({ app: agentTestApp() });
    useScript(rt.agents, "s", [
      { text: "Let me echo.", toolCalls: [{ toolName: "echo", input: { text: "hi" } }] },
      { text: "It said hi." },
    ]);
    const { log } = await runToEnd(rt.agents, { userMessage: "go", toolNames: ["echo"], llmProvider: "s" });
    expect(turnsOf(log)).toEqual([
      [1, "Let me echo."],
      [2, "It said hi."],
    ]);
    expect(types(log).filter((t) => t !== "message_delta")).toEqual([
      "tool_call_step",
      "tool_result_step",
      "run_usage",
      "message_final",
    ]);
    expect(ofType(log, "message_final")[0].turn).toBe(2);
  });

  it("should stream an invalid structured answer as its turn and make the retry the next turn, which StructuredFinal names", async () => {
    rt = await testRuntime({ app: agentTestApp() });
    useScript(rt.agents, "s", [{ text: '{"n": "x"}' }, { text: '{"n": 3}' }]);
    const { log } = await runToEnd(rt.agents, {
      userMessage: "?",
      responseFormat: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      llmProvider: "s",
    });
    expect(turnsOf(log)).toEqual([
      [1, '{"n": "x"}'],
      [2, '{"n": 3}'],
    ]);
    expect(ofType(log, "structured_final")[0]).toMatchObject({ data: { n: 3 }, turn: 2 });
  });

  it("should give a terminate its own turn for a text answer, and turn null to a structured one from a tool result", async () => {
    const app = agentTestApp();
    app.tool({ name: "finish_text", description: "Ends with text.", input: z.object({}) }, () =>
      toolResult({ content: [{ type: "text", text: "Finished." }], terminate: true }),
    );
    app.tool({ name: "finish_data", description: "Ends with data.", input: z.object({}) }, () =>
      toolResult({ data: { done: true }, terminate: true }),
    );
    rt = await testRuntime({ app });
    useScript(rt.agents, "t", [{ text: "Ending.", toolCalls: [{ toolName: "finish_text", input: {} }] }]);
    const text = await runToEnd(rt.agents, { userMessage: "end", toolNames: ["finish_text"], llmProvider: "t" });
    expect(turnsOf(text.log)).toEqual([
      [1, "Ending."],
      [2, "Finished."],
    ]);
    expect(ofType(text.log, "message_final")[0]).toMatchObject({ text: "Finished.", turn: 2 });
    useScript(rt.agents, "d", [{ toolCalls: [{ toolName: "finish_data", input: {} }] }]);
    const data = await runToEnd(rt.agents, { userMessage: "end", toolNames: ["finish_data"], llmProvider: "d" });
    expect(ofType(data.log, "structured_final")[0]).toMatchObject({ data: { done: true }, turn: null });
  });

  it("should number on from the paused turns when a suspended run continues out of band, and from 1 in a new run that resumes a thread", async () => {
    rt = await testRuntime({ app: agentTestApp() });
    const r = rt;
    const script = (view: ScriptView) =>
      view.prompt.at(-1)?.role === "tool"
        ? { text: "Approved, spending." }
        : { text: "Asking first.", toolCalls: [{ toolName: "approve_spend", input: { amount: 5 } }] };
    useScript(r.agents, "s", script);
    const { started, log } = await runToEnd(r.agents, {
      userMessage: "spend 5",
      toolNames: ["approve_spend"],
      llmProvider: "s",
    });
    expect(turnsOf(log)).toEqual([[1, "Asking first."]]);
    expect(types(log).at(-1)).toBe("suspended_final");
    const [interaction] = await r.interactions.list("PENDING", as("ADMIN"));
    const continued = (async () => {
      const out: AgentLogEntry[] = [];
      for await (const e of r.agents.events(started.runId, log.at(-1)!.seq, new AbortController().signal)) out.push(e);
      return out;
    })();
    await r.interactions.answer(interaction.id, { ok: true }, as("USER"));
    const rest = await continued;
    expect(turnsOf(rest)).toEqual([[2, "Approved, spending."]]);
    expect(ofType(rest, "message_final")[0]).toMatchObject({ text: "Approved, spending.", turn: 2 });

    // An explicit resume is a run of its own: its turns start at 1.
    useScript(r.agents, "g", [{ toolCalls: [{ toolName: "echo", input: { text: "x" } }] }, { text: "Echoed." }]);
    const gated = await runToEnd(r.agents, {
      userMessage: "echo",
      toolNames: ["echo"],
      interruptOn: { echo: true },
      llmProvider: "g",
    });
    const resumed = await runToEnd(r.agents, {
      threadId: gated.started.threadId,
      resume: { decisions: [{ type: "approve" }] },
    });
    expect(turnsOf(resumed.log)).toEqual([[1, "Echoed."]]);
    expect(ofType(resumed.log, "message_final")[0].turn).toBe(1);
  });

  it("should stream a sub-agent's text as IntermediateDelta numbered by the sub-agent's own turns, before its parent's result", async () => {
    rt = await testRuntime({ app: agentTestApp() });
    useScript(rt.agents, "s", (view) => {
      const system = view.prompt[0].content as string;
      if (system.startsWith("You research"))
        return view.prompt.some((m) => m.role === "tool")
          ? { text: "the fact is fact" }
          : { text: "Looking it up.", toolCalls: [{ toolName: "echo", input: { text: "fact" } }] };
      return view.prompt.some((m) => m.role === "tool")
        ? { text: "Summary: fact." }
        : { text: "Delegating.", toolCalls: [{ toolName: "researcher", input: { task: "find" } }] };
    });
    const { log } = await runToEnd(rt.agents, {
      userMessage: "?",
      subagents: [
        { name: "researcher", description: "Finds facts", systemPrompt: "You research.", toolNames: ["echo"] },
      ],
      llmProvider: "s",
    });
    expect(turnsOf(log, "intermediate_delta", "researcher")).toEqual([
      [1, "Looking it up."],
      [2, "the fact is fact"],
    ]);
    expect(ofType(log, "message_delta").filter((d) => d.agent)).toEqual([]);
    expect(turnsOf(log)).toEqual([
      [1, "Delegating."],
      [2, "Summary: fact."],
    ]);
    const parentResult = log.findIndex((e) => e.type === "tool_result_step" && !e.agent);
    expect(log.findLastIndex((e) => e.type === "intermediate_delta")).toBeLessThan(parentResult);
    expect(ofType(log, "message_final")[0].turn).toBe(2);
  });
});

class Typist extends Agent {
  static override toolName = "typist";
  static override toolDescription = "Types an answer in two chunks.";
  static override ToolInput = z.object({});
  override async run(options: AgentRunOptions, ctx: AgentContext): Promise<unknown> {
    return drain(this.astream(options, ctx));
  }
  override async *astream(_options: AgentRunOptions, _ctx: AgentContext): AsyncGenerator<StreamEvent> {
    yield { type: "message_delta", final: false, text: "Hel" };
    yield { type: "message_delta", final: false, text: "lo" };
    yield { type: "message_final", final: true, text: "Hello" };
  }
}

class Quiet extends Agent {
  static override toolName = "quiet";
  static override toolDescription = "Answers without streaming.";
  static override ToolInput = z.object({});
  override async run(): Promise<unknown> {
    return "done";
  }
}

describe("sub-agent turns", () => {
  it("should never reuse a sub-agent's turn number in a run, even across two calls of it", async () => {
    rt = await testRuntime({ app: agentTestApp() });
    useScript(rt.agents, "s", (view) => {
      const system = view.prompt[0].content as string;
      if (system.startsWith("You research"))
        return view.prompt.some((m) => m.role === "tool")
          ? { text: "found it" }
          : { text: "Looking.", toolCalls: [{ toolName: "echo", input: { text: "x" } }] };
      return view.prompt.some((m) => m.role === "tool")
        ? { text: "Both done." }
        : {
            toolCalls: [
              { toolName: "researcher", input: { task: "a" } },
              { toolName: "researcher", input: { task: "b" } },
            ],
          };
    });
    const { log } = await runToEnd(rt.agents, {
      userMessage: "?",
      subagents: [
        { name: "researcher", description: "Finds facts", systemPrompt: "You research.", toolNames: ["echo"] },
      ],
      llmProvider: "s",
    });
    const byTurn = new Map<number, string>();
    for (const d of ofType(log, "intermediate_delta")) byTurn.set(d.turn!, (byTurn.get(d.turn!) ?? "") + d.text);
    expect([...byTurn.keys()].sort()).toEqual([1, 2, 3, 4]);
    expect([...byTurn.values()].sort()).toEqual(["Looking.", "Looking.", "found it", "found it"]);
    expect(ofType(log, "message_final")[0]).toMatchObject({ text: "Both done.", turn: 2 });
  });
});

describe("an agent that does not number its turns", () => {
  it("should have its deltas numbered turn 1 by the runner and its terminal name turn 1, or null when it streamed no delta", async () => {
    const app = new App();
    app.agent(Typist);
    app.agent(Quiet);
    rt = await testRuntime({ app });
    const typed = await runToEnd(rt.agents, {}, as("USER"), "typist");
    expect(ofType(typed.log, "message_delta").map((d) => d.turn)).toEqual([1, 1]);
    expect(ofType(typed.log, "message_final")[0]).toMatchObject({ text: "Hello", turn: 1 });
    const quiet = await runToEnd(rt.agents, {}, as("USER"), "quiet");
    expect(ofType(quiet.log, "message_final")[0]).toMatchObject({ text: "done", turn: null });
  });
});
