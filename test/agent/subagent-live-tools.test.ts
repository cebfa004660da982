import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolError } from "../../src/errors.ts";
import type { ScriptView, ScriptedTurn } from "../../src/agent/providers/scripted-model.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { ofType, runToEnd, useScript } from "./support.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

/** The parent calls `helper`; the helper calls `lookup` with each of `calls`, one per turn, then answers. */
function script(calls: Record<string, unknown>[]) {
  return (view: ScriptView): ScriptedTurn => {
    const sub = (view.prompt[0].content as string).startsWith("You help");
    const results = view.prompt.filter((m) => m.role === "tool").length;
    if (!sub) return results ? { text: "done" } : { toolCalls: [{ toolName: "helper", input: { task: "look up" } }] };
    return results < calls.length ? { toolCalls: [{ toolName: "lookup", input: calls[results] }] } : { text: "helped" };
  };
}

describe("SubAgentSpec.tools: live tools (functions) given by in-process callers", () => {
  it("should offer a live tool to its sub-agent, run it with validated arguments, and give bad arguments back as an error result", async () => {
    rt = await testRuntime();
    const model = useScript(rt.agents, "s", script([{ key: "abc" }, { key: 5 }]));
    const seen: unknown[] = [];
    const lookup = { name: "lookup", description: "Looks a key up", input: z.object({ key: z.string() }), run: (args: Record<string, unknown>) => (seen.push(args), { value: String(args.key).toUpperCase() }) };
    const { started, log } = await runToEnd(rt.agents, { userMessage: "?", llmProvider: "s", subagents: [{ name: "helper", description: "Helps", systemPrompt: "You help.", tools: [lookup] }] });
    const results = ofType(log, "tool_result_step").filter((e) => e.tool === "lookup");
    expect(results.map((e) => [e.agent, e.isError])).toEqual([
      ["helper", false],
      ["helper", true],
    ]);
    expect(results[0].result).toEqual({ value: "ABC" });
    expect(results[1].result).toMatchObject({ kind: "INVALID_INPUT", issues: [{ path: "/key" }] });
    expect(seen).toEqual([{ key: "abc" }]);
    expect(model.seen.find((s) => (s.prompt[0].content as string).startsWith("You help"))!.tools?.map((t) => t.name)).toEqual(["lookup"]);
    const stored = await rt.agents.store.get(started.runId);
    expect(stored!.input.subagents).toEqual([{ name: "helper", description: "Helps", systemPrompt: "You help." }]);
    expect(await rt.runs.list({ tool: "lookup" }, 10)).toEqual([]);
  });

  it("should turn a live tool's ToolError into an error result with its kind, and any other throw into INTERNAL without its message", async () => {
    rt = await testRuntime();
    useScript(rt.agents, "s", script([{ key: "a" }, { key: "b" }]));
    const lookup = {
      name: "lookup",
      description: "Fails",
      input: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
      run: (args: Record<string, unknown>) => {
        if (args.key === "a") throw new ToolError("not there", { kind: "NOT_FOUND" });
        throw new Error("internal detail s3cr3t");
      },
    };
    const { log } = await runToEnd(rt.agents, { userMessage: "?", llmProvider: "s", subagents: [{ name: "helper", description: "Helps", systemPrompt: "You help.", tools: [lookup] }] });
    const results = ofType(log, "tool_result_step").filter((e) => e.tool === "lookup");
    expect(results.map((e) => e.result)).toEqual([expect.objectContaining({ kind: "NOT_FOUND", message: "not there" }), expect.objectContaining({ kind: "INTERNAL" })]);
    expect(JSON.stringify(log)).not.toContain("s3cr3t");
  });

  it("should never store live tools: a resume of a sub-agent paused on one must give them again", async () => {
    rt = await testRuntime();
    useScript(rt.agents, "s", script([{ key: "abc" }]));
    let calls = 0;
    const lookup = { name: "lookup", description: "Looks a key up", input: z.object({ key: z.string() }), run: () => ++calls };
    const spec = (tools: (typeof lookup)[]) => [{ name: "helper", description: "Helps", systemPrompt: "You help.", tools, interruptOn: { lookup: true } }];
    const first = await runToEnd(rt.agents, { userMessage: "?", llmProvider: "s", subagents: spec([lookup]) });
    expect(ofType(first.log, "interrupt_final")[0]).toMatchObject({ agent: "helper", payload: { actions: [{ tool: "lookup" }] } });
    const resume = { threadId: first.started.threadId, resume: { decisions: [{ type: "approve" }] } };
    await expect(rt.agents.start({ options: resume, caller: as("USER") })).rejects.toMatchObject({ code: "BAD_USER_INPUT", issues: [expect.objectContaining({ message: expect.stringContaining('"lookup"') })] });
    const resumed = await runToEnd(rt.agents, { ...resume, subagents: spec([lookup]) });
    expect(ofType(resumed.log, "tool_result_step").map((e) => [e.agent, e.tool, e.result])).toEqual([
      ["helper", "lookup", 1],
      [null, "helper", "helped"],
    ]);
    expect(calls).toBe(1);
  });

  it("should refuse a malformed live tool with BAD_USER_INPUT naming it, and store nothing", async () => {
    rt = await testRuntime();
    const bad = { name: "bad name!", description: "", run: "not a function" } as never;
    await expect(rt.agents.start({ options: { userMessage: "?", subagents: [{ name: "helper", description: "Helps", subagents: [{ name: "inner", description: "d", tools: [bad] }] }] }, caller: as("USER") })).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [
        { path: "/subagents/0/subagents/0/tools/0/name", message: "must match ^[A-Za-z0-9_-]{1,64}$" },
        { path: "/subagents/0/subagents/0/tools/0/description", message: "must not be empty" },
        { path: "/subagents/0/subagents/0/tools/0/run", message: "must be a function" },
      ],
    });
    expect(await rt.db.agentRun.count()).toBe(0);
  });
});
