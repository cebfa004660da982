import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../../src/app.ts";
import type { AgentLogEntry } from "../../../src/agent/events.ts";
import { scriptedModel, type Conversation, type ScriptTurn } from "../../../src/index.ts";
import { testRuntime, type TestRuntime } from "../../helpers/runtime.ts";
import { ofType, runToEnd, types } from "../support.ts";

/** The user's own tools, as a module of theirs registers them. */
function weatherApp(): App {
  const app = new App();
  app.tool(
    { name: "weather", description: "The forecast of a city.", input: z.object({ city: z.string() }) },
    ({ city }) => ({
      city,
      forecast: city === "Paris" ? "sunny" : "rainy",
      celsius: city === "Paris" ? 24 : 12,
    }),
  );
  return app;
}

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

async function runtimeWith(register: (app: App) => void): Promise<TestRuntime> {
  const app = weatherApp();
  register(app);
  return (rt = await testRuntime({ app }));
}

const text = (log: AgentLogEntry[]) => ofType(log, "message_final")[0]?.text;

describe("a scripted model written in code", () => {
  it("should play its turns in order, calling the user's tool through the chokepoint and answering", async () => {
    const r = await runtimeWith((app) =>
      app.llmProvider(
        "weather-script",
        scriptedModel({
          turns: [{ toolCalls: [{ name: "weather", args: { city: "Paris" } }] }, { text: "It is sunny in Paris." }],
        }),
      ),
    );
    const { started, log } = await runToEnd(r.agents, {
      userMessage: "Weather in Paris?",
      toolNames: ["weather"],
      llmProvider: "weather-script",
    });
    expect(types(log).filter((t) => t !== "message_delta")).toEqual([
      "tool_call_step",
      "tool_result_step",
      "run_usage",
      "message_final",
    ]);
    expect(ofType(log, "tool_call_step")[0]).toMatchObject({
      tool: "weather",
      args: { city: "Paris" },
      callId: "call_0_0",
    });
    expect(text(log)).toBe("It is sunny in Paris.");
    const [toolRun] = await r.runs.list({ tool: "weather" }, 10);
    expect(toolRun).toMatchObject({
      door: "agent",
      parentRunId: started.runId,
      status: "SUCCEEDED",
      input: { city: "Paris" },
    });
    expect(toolRun.data).toEqual({ city: "Paris", forecast: "sunny", celsius: 24 });
  });

  it("should let a turn depend on the tool results of the turns before it", async () => {
    const seen: Conversation[] = [];
    const r = await runtimeWith((app) =>
      app.llmProvider(
        "by-results",
        scriptedModel({
          turns: (c): ScriptTurn => {
            seen.push(c);
            if (c.turn === 0)
              return {
                toolCalls: [{ name: "weather", args: { city: c.userMessage.includes("Oslo") ? "Oslo" : "Paris" } }],
              };
            const { forecast, celsius } = c.toolResults[0].output as { forecast: string; celsius: number };
            return { text: `${c.toolResults[0].args.city}: ${forecast}, ${celsius} °C.` };
          },
        }),
      ),
    );
    const { log } = await runToEnd(r.agents, {
      userMessage: "Weather in Oslo?",
      toolNames: ["weather"],
      llmProvider: "by-results",
    });
    expect(text(log)).toBe("Oslo: rainy, 12 °C.");
    expect(seen.map((c) => [c.turn, c.userMessage, c.tools, c.toolResults.map((t) => [t.name, t.isError])])).toEqual([
      [0, "Weather in Oslo?", ["weather", "ask_caller"], []],
      [1, "Weather in Oslo?", ["weather", "ask_caller"], [["weather", false]]],
    ]);
  });

  it("should show a turn's reasoning and its several tool calls in the stream, the calls run as one batch", async () => {
    const r = await runtimeWith((app) =>
      app.llmProvider(
        "two-cities",
        scriptedModel({
          turns: [
            {
              reasoning: "Two cities, so two calls.",
              toolCalls: [
                { name: "weather", args: { city: "Paris" } },
                { name: "weather", args: { city: "Oslo" }, id: "oslo" },
              ],
            },
            { text: "Paris is sunny, Oslo is rainy." },
          ],
        }),
      ),
    );
    const { log } = await runToEnd(r.agents, {
      userMessage: "Paris and Oslo?",
      toolNames: ["weather"],
      llmProvider: "two-cities",
    });
    expect(types(log).filter((t) => t !== "message_delta")).toEqual([
      "reasoning_step",
      "tool_call_step",
      "tool_call_step",
      "tool_result_step",
      "tool_result_step",
      "run_usage",
      "message_final",
    ]);
    expect(ofType(log, "reasoning_step")[0]).toMatchObject({ text: "Two cities, so two calls." });
    expect(ofType(log, "tool_call_step").map((s) => [s.callId, s.args])).toEqual([
      ["call_0_0", { city: "Paris" }],
      ["oslo", { city: "Oslo" }],
    ]);
    expect((await r.runs.list({ tool: "weather" }, 10)).map((t) => t.status)).toEqual(["SUCCEEDED", "SUCCEEDED"]);
  });

  it("should give a call to a tool the run does not offer the error result a model would get, and go on", async () => {
    const r = await runtimeWith((app) =>
      app.llmProvider(
        "wrong-tool",
        scriptedModel({
          turns: (c) =>
            c.turn === 0
              ? { toolCalls: [{ name: "forecast", args: { city: "Paris" } }] }
              : { text: `The tool failed: ${c.toolResults[0].isError}.` },
        }),
      ),
    );
    const { log } = await runToEnd(r.agents, {
      userMessage: "Weather?",
      toolNames: ["weather"],
      llmProvider: "wrong-tool",
    });
    expect(ofType(log, "tool_result_step")[0]).toMatchObject({ tool: "forecast", isError: true });
    expect(text(log)).toBe("The tool failed: true.");
    expect(await r.runs.list({ tool: "weather" }, 10)).toEqual([]);
  });

  it("should report the usage each turn declares, totalled over the run", async () => {
    const r = await runtimeWith((app) =>
      app.llmProvider(
        "metered",
        scriptedModel({
          modelId: "metered-1",
          turns: [
            {
              toolCalls: [{ name: "weather", args: { city: "Paris" } }],
              usage: { inputTokens: 100, outputTokens: 10 },
            },
            { text: "Sunny.", usage: { inputTokens: 150, outputTokens: 5 } },
          ],
        }),
      ),
    );
    const { log } = await runToEnd(r.agents, {
      userMessage: "Weather?",
      toolNames: ["weather"],
      llmProvider: "metered",
    });
    expect(ofType(log, "run_usage")[0]).toMatchObject({
      inputTokens: 250,
      outputTokens: 15,
      totalTokens: 265,
      model: "metered-1",
    });
  });

  it("should stream the answer in word chunks at the configured pace", async () => {
    const r = await runtimeWith((app) =>
      app.llmProvider("paced", scriptedModel({ chunkDelayMs: 20, turns: [{ text: "One two three four five." }] })),
    );
    const { log } = await runToEnd(r.agents, { userMessage: "Count.", llmProvider: "paced" });
    expect(ofType(log, "message_delta").map((d) => d.text)).toEqual(["One ", "two ", "three ", "four ", "five."]);
    expect(text(log)).toBe("One two three four five.");
  });

  it("should keep its place in the conversation across an interrupt's resume and the thread's next run", async () => {
    const r = await runtimeWith((app) =>
      app.llmProvider(
        "long",
        scriptedModel({
          turns: [
            { toolCalls: [{ name: "weather", args: { city: "Paris" } }] },
            { text: "Sunny in Paris." },
            { text: "Still sunny." },
          ],
        }),
      ),
    );
    const first = await runToEnd(r.agents, {
      userMessage: "Paris?",
      toolNames: ["weather"],
      llmProvider: "long",
      interruptOn: { weather: true },
    });
    expect(first.log.at(-1)).toMatchObject({ type: "interrupt_final" });
    const resumed = await runToEnd(r.agents, { threadId: first.started.threadId, resume: { type: "approve" } });
    expect(text(resumed.log)).toBe("Sunny in Paris.");
    const next = await runToEnd(r.agents, {
      threadId: first.started.threadId,
      userMessage: "And now?",
      llmProvider: "long",
    });
    expect(text(next.log)).toBe("Still sunny.");
  });

  it("should fail the run naming the turn a list does not have", async () => {
    const r = await runtimeWith((app) =>
      app.llmProvider(
        "short",
        scriptedModel({ turns: [{ toolCalls: [{ name: "weather", args: { city: "Paris" } }] }] }),
      ),
    );
    const { log } = await runToEnd(r.agents, { userMessage: "Weather?", toolNames: ["weather"], llmProvider: "short" });
    expect(log.at(-1)).toMatchObject({
      type: "run_failed",
      message: expect.stringContaining("the script has no turn 2 (it has 1)"),
    });
  });

  it("should fail the model call naming what is wrong with a turn a script function returned", async () => {
    const r = await runtimeWith((app) =>
      app.llmProvider(
        "sloppy",
        scriptedModel({ turns: () => ({ toolCalls: [{ tool: "weather" }] }) as unknown as ScriptTurn }),
      ),
    );
    const { log } = await runToEnd(r.agents, {
      userMessage: "Weather?",
      toolNames: ["weather"],
      llmProvider: "sloppy",
    });
    expect(log.at(-1)).toMatchObject({
      type: "run_failed",
      message: expect.stringMatching(/turn 1 is malformed: \/toolCalls\/0\/name: .*\/toolCalls\/0\/tool/),
    });
  });
});
