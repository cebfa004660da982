import { describe, expect, it } from "vitest";
import { apiRefusal } from "../helpers/refusals.ts";
import { defineTool } from "../../src/tools/define-tool.ts";
import { until } from "../graphql/support.ts";
import { as } from "../helpers/runtime.ts";
import { agentRuntimePerTest, ofType, runToEnd, types, useScript } from "./support.ts";

const setup = agentRuntimePerTest();

/** The refusal of a start: its ApiError. */
const refusal = apiRefusal;

describe("seed 002: live tools= is deliberately NOT in ToolInput (API-only via astream)", () => {
  const shout = defineTool({
    name: "shout",
    description: "Upper-cases a text.",
    parameters: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
      additionalProperties: false,
    },
    execute: ({ text }) => ({ loud: String(text).toUpperCase() }),
  });
  const fenced = defineTool({
    name: "launch",
    description: "A fenced live tool.",
    tier: "fenced",
    parameters: { type: "object", properties: {}, additionalProperties: false },
    execute: () => ({ launched: true }),
  });

  it("should keep tools out of the agent's ToolInput", async () => {
    const r = await setup();
    const info = r.agents.list().find((a) => a.name === "tools_agent")!;
    expect(Object.keys(info.inputSchema.properties as object)).not.toContain("tools");
    expect(Object.keys(info.inputSchema.properties as object)).toEqual(
      expect.arrayContaining(["strategy", "checkpointProvider", "storeProvider"]),
    );
  });

  it("should offer an in-process caller's live tool to the model and run it through the chokepoint, storing the run input without it", async () => {
    const r = await setup();
    const model = useScript(r.agents, "s", [
      { toolCalls: [{ toolName: "shout", input: { text: "hey" } }] },
      { text: "done" },
    ]);
    const { started, log } = await runToEnd(
      r.agents,
      { userMessage: "shout hey", llmProvider: "s", tools: [shout] },
      as("USER"),
    );
    expect(model.seen[0].tools?.map((t) => t.name)).toContain("shout");
    expect(ofType(log, "tool_result_step")[0]).toMatchObject({
      tool: "shout",
      isError: false,
      result: { loud: "HEY" },
    });
    expect(await r.runs.list({ tool: "shout" }, 10)).toEqual([
      expect.objectContaining({
        door: "agent",
        parentRunId: started.runId,
        callerRole: "USER",
        status: "SUCCEEDED",
        tier: "read",
      }),
    ]);
    expect(Object.keys((await r.agents.store.get(started.runId))!.input)).not.toContain("tools");
  });

  it("should hold a live tool to its tier: a USER's run gets PERMISSION_DENIED for a fenced live tool, an ADMIN's runs it", async () => {
    const r = await setup();
    useScript(r.agents, "s", [
      { toolCalls: [{ toolName: "launch", input: {} }] },
      { text: "ok" },
      { toolCalls: [{ toolName: "launch", input: {} }] },
      { text: "ok" },
    ]);
    const user = await runToEnd(r.agents, { userMessage: "go", llmProvider: "s", tools: [fenced] }, as("USER"));
    expect(ofType(user.log, "tool_result_step")[0]).toMatchObject({
      isError: true,
      result: { kind: "PERMISSION_DENIED" },
    });
    const admin = await runToEnd(r.agents, { userMessage: "go", llmProvider: "s", tools: [fenced] }, as("ADMIN"));
    expect(ofType(admin.log, "tool_result_step")[0]).toMatchObject({ isError: false, result: { launched: true } });
  });

  it("should stream a live tool's updates (on_update) as ToolProgressSteps, like a surface tool's", async () => {
    const r = await setup();
    const busy = defineTool({
      name: "busy",
      description: "Reports progress.",
      parameters: { type: "object", properties: {}, additionalProperties: false },
      execute: async (_args, ctx) => {
        ctx.onUpdate({ message: "halfway", progress: 1, total: 2 });
        await until("the update to be stored", async () =>
          (await r.runs.events({ runId: ctx.runId }, 0)).some((e) => e.type === "RUN_PROGRESS"),
        );
        return "done";
      },
    });
    useScript(r.agents, "s", [{ toolCalls: [{ toolName: "busy", input: {} }] }, { text: "ok" }]);
    const { log } = await runToEnd(r.agents, { userMessage: "go", llmProvider: "s", tools: [busy] }, as("USER"));
    expect(types(log).slice(0, 3)).toEqual(["tool_call_step", "tool_progress_step", "tool_result_step"]);
    expect(ofType(log, "tool_progress_step")[0]).toMatchObject({
      tool: "busy",
      agent: null,
      message: "halfway",
      progress: 1,
      total: 2,
    });
  });

  it("should redact a secret-tier live tool's arguments and result in the stored events, the thread and its run record", async () => {
    const r = await setup();
    const vault = defineTool({
      name: "live_vault",
      description: "Reads a secret.",
      tier: "secret",
      parameters: { type: "object", properties: { name: { type: "string" } }, additionalProperties: false },
      execute: ({ name }) => ({ secret: `live-s3cr3t-${String(name)}` }),
    });
    useScript(r.agents, "s", [
      { toolCalls: [{ toolName: "live_vault", input: { name: "db-password" } }] },
      { text: "got it" },
    ]);
    const { log } = await runToEnd(r.agents, { userMessage: "read", llmProvider: "s", tools: [vault] }, as("ADMIN"));
    expect(ofType(log, "tool_call_step")[0]).toMatchObject({ tool: "live_vault", args: { redacted: "[redacted]" } });
    expect(ofType(log, "tool_result_step")[0]).toMatchObject({
      tool: "live_vault",
      result: "[redacted]",
      isError: false,
    });
    const stored = JSON.stringify([
      await r.db.agentEvent.findMany(),
      await r.db.threadMessage.findMany(),
      await r.db.run.findMany({ where: { tool: "live_vault" } }),
    ]);
    expect(stored).not.toContain("live-s3cr3t");
    expect(stored).not.toContain("db-password");
  });

  it("should refuse tools given as JSON (e.g. through extra) and a live tool named like a surface tool, storing nothing", async () => {
    const r = await setup();
    const json = await refusal(
      r.agents.start({ options: { userMessage: "hi", tools: [{ name: "shout" }] as never }, caller: as("USER") }),
    );
    expect(json.issues).toEqual([
      {
        path: "/tools/0",
        message: "must be a live tool definition (defineTool); live tools are given in process, never as JSON",
      },
    ]);
    const clash = defineTool({
      name: "calculate",
      description: "Shadows the surface tool.",
      parameters: { type: "object" },
      execute: () => 1,
    });
    const shadow = await refusal(
      r.agents.start({ options: { userMessage: "hi", tools: [clash] }, caller: as("USER") }),
    );
    expect(shadow.issues).toEqual([
      { path: "/tools/0", message: 'the live tool "calculate" has the name of a surface tool; give it another name' },
    ]);
    expect(await r.db.agentRun.count()).toBe(0);
  });
});
