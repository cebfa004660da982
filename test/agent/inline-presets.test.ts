import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, type AgentRunOptions } from "../../src/agent/agent.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { agentTestApp } from "./fixtures.ts";
import { ofType, runToEnd, useScript } from "./support.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

const double = {
  name: "double",
  description: "Doubles a",
  baseTool: "calculate",
  fixedKwargs: { op: "multiply", b: 2 },
};

describe("an agent run's inline preset", () => {
  it("should refuse a call that passes a baked key, naming each at its path, and run nothing", async () => {
    rt = await testRuntime({ app: agentTestApp([]) });
    useScript(rt.agents, "s", [
      { toolCalls: [{ toolName: "double", input: { a: 21, b: 3, op: "add" } }] },
      { text: "I could not." },
    ]);
    const { log } = await runToEnd(rt.agents, { userMessage: "?", presets: [double], llmProvider: "s" });
    expect(ofType(log, "tool_result_step")[0]).toMatchObject({
      tool: "double",
      isError: true,
      result: {
        kind: "INVALID_INPUT",
        message: 'invalid input for "double": /op: is baked by the preset; /b: is baked by the preset',
        issues: [
          { path: "/op", message: "is baked by the preset and cannot be passed" },
          { path: "/b", message: "is baked by the preset and cannot be passed" },
        ],
      },
    });
    expect(await rt.runs.list({ tool: "calculate" }, 10)).toEqual([]);
  });

  it("should run as its base tool with the baked constants winning the merge, one run per call", async () => {
    rt = await testRuntime({ app: agentTestApp([]) });
    useScript(rt.agents, "s", [
      {
        toolCalls: [
          { toolName: "double", input: { a: 5 } },
          { toolName: "double", input: { a: 7 } },
        ],
      },
      { text: "10 and 14" },
    ]);
    const { log } = await runToEnd(rt.agents, { userMessage: "?", presets: [double], llmProvider: "s" });
    expect(ofType(log, "tool_result_step").map((e) => e.result)).toEqual([{ result: 10 }, { result: 14 }]);
    const runs = await rt.runs.list({ tool: "calculate" }, 10);
    expect(runs.map((r) => r.input).sort((x, y) => (x as { a: number }).a - (y as { a: number }).a)).toEqual([
      { a: 5, op: "multiply", b: 2 },
      { a: 7, op: "multiply", b: 2 },
    ]);
  });

  it("should refuse baking what a stored preset may not bake: an agent field its class keeps unbakeable, a key the base already bakes", async () => {
    const app = agentTestApp([]);
    app.agent(Asker);
    rt = await testRuntime({ app });
    await rt.presets.create(
      { name: "calc_mul", description: "Multiplies", baseTool: "calculate", fixedKwargs: { op: "multiply" } },
      as("ADMIN"),
    );
    const presets: {
      name: string;
      description: string;
      baseTool: string;
      fixedKwargs: Record<string, string | boolean>;
    }[] = [
      { name: "p1", description: "d", baseTool: "asker", fixedKwargs: { question: "fixed?", loud: true } },
      { name: "p2", description: "d", baseTool: "calc_mul", fixedKwargs: { op: "add" } },
    ];
    await expect(rt.agents.start({ options: { userMessage: "?", presets }, caller: as("USER") })).rejects.toMatchObject(
      {
        code: "BAD_USER_INPUT",
        issues: [
          { path: "/presets/0/fixedKwargs/question", message: 'is not a preset-bakeable field of agent "asker"' },
          { path: "/presets/1/fixedKwargs/op", message: 'is already baked by "calc_mul"' },
        ],
      },
    );
  });
});

/** An agent whose presets may bake only `loud`. */
class Asker extends Agent {
  static override toolName = "asker";
  static override toolDescription = "Asks.";
  static override ToolInput = z.object({ question: z.string(), loud: z.boolean().optional() });
  static override presetBakeableFields = ["loud"];
  override async run(options: AgentRunOptions): Promise<unknown> {
    return options.loud ? String(options.question).toUpperCase() : options.question;
  }
}
