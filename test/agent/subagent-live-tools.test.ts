import { afterEach, describe, expect, it } from "vitest";
import { ToolError } from "../../src/errors.ts";
import type { ScriptView, ScriptedTurn } from "../../src/agent/providers/scripted-model.ts";
import { defineTool } from "../../src/tools/define-tool.ts";
import type { ToolDefinition } from "../../src/tools/definition.ts";
import { until } from "../graphql/support.ts";
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

const KEY = { type: "object", properties: { key: { type: "string" } }, required: ["key"], additionalProperties: false };
const lookupTool = (execute: ToolDefinition["execute"], more: { tier?: "read" | "fenced" | "secret" } = {}) =>
  defineTool({ name: "lookup", description: "Looks a key up", parameters: KEY, execute, ...more });
const helper = (tools: ToolDefinition[], more: Record<string, unknown> = {}) => [
  { name: "helper", description: "Helps", systemPrompt: "You help.", tools, ...more },
];

describe('SubAgentSpec.tools: "the in-process, live-tools shape" — defineTool definitions run through the dispatch chokepoint', () => {
  it("should offer a live tool to its sub-agent, run it with validated arguments as a stored tool run (door agent, child of the agent run), and give bad arguments back as an error result", async () => {
    rt = await testRuntime();
    const model = useScript(rt.agents, "s", script([{ key: "abc" }, { key: 5 }]));
    const seen: unknown[] = [];
    const lookup = lookupTool((args) => (seen.push(args), { value: String(args.key).toUpperCase() }));
    const { started, log } = await runToEnd(rt.agents, {
      userMessage: "?",
      llmProvider: "s",
      subagents: helper([lookup]),
    });
    const results = ofType(log, "tool_result_step").filter((e) => e.tool === "lookup");
    expect(results.map((e) => [e.agent, e.isError])).toEqual([
      ["helper", false],
      ["helper", true],
    ]);
    expect(results[0].result).toEqual({ value: "ABC" });
    expect(results[1].result).toMatchObject({ kind: "INVALID_INPUT", issues: [{ path: "/key" }] });
    expect(seen).toEqual([{ key: "abc" }]);
    expect(
      model.seen.find((s) => (s.prompt[0].content as string).startsWith("You help"))!.tools?.map((t) => t.name),
    ).toEqual(["lookup"]);
    const stored = await rt.agents.store.get(started.runId);
    expect(stored!.input.subagents).toEqual([{ name: "helper", description: "Helps", systemPrompt: "You help." }]);
    const runs = await rt.runs.list({ tool: "lookup" }, 10);
    expect(
      runs
        .map((r) => [r.door, r.parentRunId, r.callerRole, r.status, r.errorKind ?? null])
        .sort((a, b) => String(a[3]).localeCompare(String(b[3]))),
    ).toEqual([
      ["agent", started.runId, "USER", expect.not.stringMatching(/^SUCCEEDED$/), "INVALID_INPUT"],
      ["agent", started.runId, "USER", "SUCCEEDED", null],
    ]);
  });

  it("should turn a live tool's ToolError into an error result with its kind, and any other throw into INTERNAL without its message", async () => {
    rt = await testRuntime();
    useScript(rt.agents, "s", script([{ key: "a" }, { key: "b" }]));
    const lookup = lookupTool(({ key }) => {
      if (key === "a") throw new ToolError("not there", { kind: "NOT_FOUND" });
      throw new Error("internal detail s3cr3t");
    });
    const { log } = await runToEnd(rt.agents, { userMessage: "?", llmProvider: "s", subagents: helper([lookup]) });
    const results = ofType(log, "tool_result_step").filter((e) => e.tool === "lookup");
    expect(results.map((e) => e.result)).toEqual([
      expect.objectContaining({ kind: "NOT_FOUND", message: "not there" }),
      expect.objectContaining({ kind: "INTERNAL" }),
    ]);
    expect(JSON.stringify([log, await rt.db.run.findMany({ where: { tool: "lookup" } })])).not.toContain("s3cr3t");
  });

  it("should hold a sub-agent's live tool to its tier: a USER's run gets PERMISSION_DENIED for a fenced one without running its body", async () => {
    rt = await testRuntime();
    useScript(rt.agents, "s", script([{ key: "k" }]));
    let ran = 0;
    const fenced = lookupTool(() => ++ran, { tier: "fenced" });
    const { started, log } = await runToEnd(
      rt.agents,
      { userMessage: "?", llmProvider: "s", subagents: helper([fenced]) },
      as("USER"),
    );
    expect(ofType(log, "tool_result_step").find((e) => e.tool === "lookup")).toMatchObject({
      agent: "helper",
      isError: true,
      result: { kind: "PERMISSION_DENIED" },
    });
    expect(ran).toBe(0);
    expect(await rt.runs.list({ tool: "lookup" }, 10)).toEqual([
      expect.objectContaining({
        door: "agent",
        parentRunId: started.runId,
        errorKind: "PERMISSION_DENIED",
        tier: "fenced",
      }),
    ]);
  });

  it("should redact a secret-tier live tool's arguments and result in the stream, the stored events, the thread and its tool run", async () => {
    rt = await testRuntime();
    useScript(rt.agents, "s", script([{ key: "db-password" }]));
    const vault = lookupTool(({ key }) => ({ secret: `live-s3cr3t-${String(key)}` }), { tier: "secret" });
    const { log } = await runToEnd(
      rt.agents,
      { userMessage: "?", llmProvider: "s", subagents: helper([vault]) },
      as("ADMIN"),
    );
    expect(ofType(log, "tool_call_step").find((e) => e.tool === "lookup")).toMatchObject({
      agent: "helper",
      args: { redacted: "[redacted]" },
    });
    expect(ofType(log, "tool_result_step").find((e) => e.tool === "lookup")).toMatchObject({
      agent: "helper",
      isError: false,
      result: "[redacted]",
    });
    const stored = JSON.stringify([
      log,
      await rt.db.agentEvent.findMany(),
      await rt.db.threadMessage.findMany(),
      await rt.db.run.findMany({ where: { tool: "lookup" } }),
      await rt.db.runEvent.findMany(),
    ]);
    expect(stored).not.toContain("live-s3cr3t");
    expect(stored).not.toContain("db-password");
    expect(await rt.runs.list({ tool: "lookup" }, 10)).toEqual([
      expect.objectContaining({ door: "agent", status: "SUCCEEDED", tier: "secret" }),
    ]);
  });

  it("should stream a live tool's updates (on_update) as ToolProgressSteps of its sub-agent's call", async () => {
    rt = await testRuntime();
    useScript(rt.agents, "s", script([{ key: "k" }]));
    const lookup = lookupTool(async (_args, ctx) => {
      ctx.onUpdate({ message: "looking", progress: 1, total: 2 });
      await until("the update to be stored", async () =>
        (await rt!.runs.events({ runId: ctx.runId }, 0)).some((e) => e.type === "RUN_PROGRESS"),
      );
      return "found";
    });
    const { log } = await runToEnd(rt.agents, { userMessage: "?", llmProvider: "s", subagents: helper([lookup]) });
    const call = ofType(log, "tool_call_step").find((e) => e.tool === "lookup")!;
    const toolRun = (await rt.runs.list({ tool: "lookup" }, 1))[0];
    expect(ofType(log, "tool_progress_step")).toEqual([
      expect.objectContaining({
        tool: "lookup",
        agent: "helper",
        callId: call.callId,
        toolRunId: toolRun.id,
        message: "looking",
        progress: 1,
        total: 2,
      }),
    ]);
  });

  it("should offer a live tool to the sub-agent given it only: two sub-agents each run their own live tool of the same name", async () => {
    rt = await testRuntime();
    useScript(rt.agents, "s", (view: ScriptView): ScriptedTurn => {
      const system = view.prompt[0].content as string;
      const results = view.prompt.filter((m) => m.role === "tool").length;
      if (system.startsWith("You help"))
        return results ? { text: "helped" } : { toolCalls: [{ toolName: "lookup", input: { key: "k" } }] };
      return results < 2
        ? { toolCalls: [{ toolName: ["helper_a", "helper_b"][results], input: { task: "look up" } }] }
        : { text: "done" };
    });
    const own = (label: string) => [lookupTool(() => label)];
    const subagents = ["a", "b"].map((x) => ({
      name: `helper_${x}`,
      description: "Helps",
      systemPrompt: "You help.",
      tools: own(x.toUpperCase()),
    }));
    const { log } = await runToEnd(rt.agents, { userMessage: "?", llmProvider: "s", subagents });
    expect(
      ofType(log, "tool_result_step")
        .filter((e) => e.tool === "lookup")
        .map((e) => [e.agent, e.result]),
    ).toEqual([
      ["helper_a", "A"],
      ["helper_b", "B"],
    ]);
    expect(await rt.runs.list({ tool: "lookup" }, 10)).toHaveLength(2);
  });

  it("should never store live tools: a resume of a sub-agent paused on one must give them again", async () => {
    rt = await testRuntime();
    useScript(rt.agents, "s", script([{ key: "abc" }]));
    let calls = 0;
    const lookup = lookupTool(() => ++calls);
    const spec = (tools: ToolDefinition[]) => helper(tools, { interruptOn: { lookup: true } });
    const first = await runToEnd(rt.agents, { userMessage: "?", llmProvider: "s", subagents: spec([lookup]) });
    expect(ofType(first.log, "interrupt_final")[0]).toMatchObject({
      agent: "helper",
      payload: { actions: [{ tool: "lookup" }] },
    });
    const resume = { threadId: first.started.threadId, resume: { decisions: [{ type: "approve" }] } };
    await expect(rt.agents.start({ options: resume, caller: as("USER") })).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [expect.objectContaining({ message: expect.stringContaining('"lookup"') })],
    });
    const resumed = await runToEnd(rt.agents, { ...resume, subagents: spec([lookup]) });
    expect(ofType(resumed.log, "tool_result_step").map((e) => [e.agent, e.tool, e.result])).toEqual([
      ["helper", "lookup", 1],
      [null, "helper", "helped"],
    ]);
    expect(calls).toBe(1);
    expect(await rt.runs.list({ tool: "lookup" }, 10)).toEqual([
      expect.objectContaining({ door: "agent", parentRunId: resumed.started.runId, status: "SUCCEEDED" }),
    ]);
  });

  it("should refuse a live tool that is not a defineTool definition, shadows a registered tool or declares pauses, with BAD_USER_INPUT naming it, and store nothing", async () => {
    rt = await testRuntime();
    const bad = { name: "lookup", description: "d", run: () => 1 } as never;
    const nested = (tools: ToolDefinition[]) => ({
      userMessage: "?",
      subagents: [{ name: "helper", description: "Helps", subagents: [{ name: "inner", description: "d", tools }] }],
    });
    await expect(rt.agents.start({ options: nested([bad]), caller: as("USER") })).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [
        {
          path: "/subagents/0/subagents/0/tools/0",
          message: "must be a live tool definition (defineTool); live tools are given in process, never as JSON",
        },
      ],
    });
    const shadow = defineTool({
      name: "calculate",
      description: "Shadows the surface tool.",
      parameters: { type: "object" },
      execute: () => 1,
    });
    const pausing = defineTool({
      name: "wait_here",
      description: "Pauses.",
      parameters: { type: "object" },
      pauses: true,
      execute: () => 1,
    });
    await expect(rt.agents.start({ options: nested([shadow, pausing]), caller: as("USER") })).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [
        {
          path: "/subagents/0/subagents/0/tools/0",
          message: 'the live tool "calculate" has the name of a surface tool; give it another name',
        },
        {
          path: "/subagents/0/subagents/0/tools/1",
          message: 'the live tool "wait_here" declares pauses; a live tool cannot pause',
        },
      ],
    });
    expect(await rt.db.agentRun.count()).toBe(0);
    expect(await rt.db.run.count()).toBe(0);
  });
});
