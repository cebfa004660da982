import { afterEach, describe, expect, it } from "vitest";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { agentTestApp } from "./fixtures.ts";
import { ofType, runToEnd, useScript } from "./support.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

const double = { name: "double", description: "Doubles a", baseTool: "calculate", fixedKwargs: { op: "multiply", b: 2 } };

describe("an agent run's inline preset", () => {
  it("should refuse a call that passes a baked key, naming each at its path, and run nothing", async () => {
    rt = await testRuntime({ app: agentTestApp([]) });
    useScript(rt.agents, "s", [{ toolCalls: [{ toolName: "double", input: { a: 21, b: 3, op: "add" } }] }, { text: "I could not." }]);
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
});
