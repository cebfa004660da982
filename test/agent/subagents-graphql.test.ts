import { afterEach, describe, expect, it } from "vitest";
import type { ScriptView, ScriptedTurn } from "../../src/agent/providers/scripted-model.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { useScript } from "./support.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

const RUN = `mutation($i: AgentRunInput!) { runAgent(input: $i) { runId threadId final { ... on StreamEventBase { type agent } ... on InterruptFinal { payload } ... on MessageFinal { text } } } }`;
type Run = {
  runAgent: {
    runId: string;
    threadId: string;
    final: { type: string; agent: string | null; payload?: { actions: { tool: string }[] }; text?: string };
  };
};

function script(view: ScriptView): ScriptedTurn {
  const system = view.prompt[0].content as string;
  const saw = view.prompt.at(-1)?.role === "tool";
  if (system.startsWith("You fetch"))
    return saw ? { text: "fetched" } : { toolCalls: [{ toolName: "echo", input: { text: "x" } }] };
  if (system.startsWith("You lead"))
    return saw ? { text: "led" } : { toolCalls: [{ toolName: "fetcher", input: { task: "fetch" } }] };
  return saw ? { text: "all done" } : { toolCalls: [{ toolName: "lead", input: { task: "lead" } }] };
}

describe("DeepSubAgentSpec: JSON callers give the full field set over GraphQL (SubAgentSpecInput)", () => {
  it("should run nested sub-agents with their own strategy and approval gates, pausing and resuming the run through runAgent", async () => {
    rt = await testRuntime();
    useScript(rt.agents, "s", script);
    const gql = gqlClient(rt);
    const subagents = [
      {
        name: "lead",
        description: "Leads",
        systemPrompt: "You lead.",
        strategy: "tools",
        recursionLimit: 5,
        subagents: [
          {
            name: "fetcher",
            description: "Fetches",
            systemPrompt: "You fetch.",
            toolNames: ["echo"],
            interruptOn: { echo: true },
            askCaller: false,
          },
        ],
      },
    ];
    const first = await gql<Run>(RUN, { i: { userMessage: "?", llmProvider: "s", subagents } });
    expect(first.errors).toBeUndefined();
    expect(first.data!.runAgent.final).toMatchObject({
      type: "interrupt_final",
      agent: "lead/fetcher",
      payload: { actions: [{ tool: "echo" }] },
    });
    const resumed = await gql<Run>(RUN, {
      i: { threadId: first.data!.runAgent.threadId, resume: { decisions: [{ type: "approve" }] } },
    });
    expect(resumed.errors).toBeUndefined();
    expect(resumed.data!.runAgent.final).toMatchObject({ type: "message_final", agent: null, text: "all done" });
  });

  it("should refuse an unknown strategy and a nested spec error with BAD_USER_INPUT naming each path, storing nothing", async () => {
    rt = await testRuntime();
    const gql = gqlClient(rt);
    const subagents = [
      {
        name: "lead",
        description: "Leads",
        strategy: "plan-execute",
        subagents: [{ name: "fetcher", description: "Fetches", toolNames: ["no_such_tool"] }],
      },
    ];
    const r = await gql(RUN, { i: { userMessage: "?", subagents } });
    expect(r.errors?.[0].extensions).toMatchObject({
      code: "BAD_USER_INPUT",
      issues: expect.arrayContaining([
        { path: "/subagents/0/strategy", message: 'no loop strategy named "plan-execute" (known: tools)' },
        { path: "/subagents/0/subagents/0/toolNames/0", message: 'no tool named "no_such_tool" is registered' },
      ]),
    });
    expect(await rt.db.agentRun.count()).toBe(0);
  });
});
