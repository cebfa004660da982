import { afterEach, describe, expect, it } from "vitest";
import type { ScriptView, ScriptedTurn } from "../../src/agent/providers/scripted-model.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { agentTestApp } from "./fixtures.ts";
import { until } from "../graphql/support.ts";
import { ofType, runToEnd, types, useScript } from "./support.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

async function setup() {
  rt = await testRuntime({ app: agentTestApp() });
  return rt;
}

/** A script by agent: each sub-agent is recognised by the start of its system prompt. */
function byAgent(
  roles: Record<string, (view: ScriptView, sawResult: boolean) => ScriptedTurn>,
  parent: (view: ScriptView, sawResult: boolean) => ScriptedTurn,
) {
  return (view: ScriptView): ScriptedTurn => {
    const system = view.prompt[0].content as string;
    const sawResult = view.prompt.at(-1)?.role === "tool";
    for (const [prefix, play] of Object.entries(roles)) if (system.startsWith(prefix)) return play(view, sawResult);
    return parent(view, sawResult);
  };
}

const callTool = (toolName: string, input: Record<string, unknown>): ScriptedTurn => ({
  toolCalls: [{ toolName, input }],
});

describe("SubAgentSpec.subagents: a sub-agent may itself have sub-agents", () => {
  it("should run a nested sub-agent as a tool of its sub-agent, attributing its events to outer/inner", async () => {
    const r = await setup();
    useScript(
      r.agents,
      "s",
      byAgent(
        {
          "You fetch": (_v, saw) => (saw ? { text: "fetched fact" } : callTool("echo", { text: "fact" })),
          "You lead": (_v, saw) =>
            saw ? { text: "lead says: fetched fact" } : callTool("fetcher", { task: "fetch it" }),
        },
        (_v, saw) => (saw ? { text: "done" } : callTool("lead", { task: "research" })),
      ),
    );
    const { log } = await runToEnd(r.agents, {
      userMessage: "?",
      llmProvider: "s",
      subagents: [
        {
          name: "lead",
          description: "Leads",
          systemPrompt: "You lead.",
          subagents: [{ name: "fetcher", description: "Fetches", systemPrompt: "You fetch.", toolNames: ["echo"] }],
        },
      ],
    });
    expect(ofType(log, "tool_result_step").map((e) => [e.agent, e.tool, e.result])).toEqual([
      ["lead/fetcher", "echo", expect.anything()],
      ["lead", "fetcher", "fetched fact"],
      [null, "lead", "lead says: fetched fact"],
    ]);
    expect(types(log).at(-1)).toBe("message_final");
  });

  it("should refuse sub-agents nested deeper than four levels, naming the path, and store nothing", async () => {
    const r = await setup();
    const nest = (depth: number): Record<string, unknown> => ({
      name: `a${depth}`,
      description: "d",
      ...(depth < 5 ? { subagents: [nest(depth + 1)] } : {}),
    });
    await expect(
      r.agents.start({ options: { userMessage: "?", subagents: [nest(1) as never] }, caller: as("USER") }),
    ).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [
        {
          path: "/subagents/0/subagents/0/subagents/0/subagents/0/subagents",
          message: "sub-agents nest at most 4 levels deep",
        },
      ],
    });
    expect(await r.db.agentRun.count()).toBe(0);
  });
});

describe("sub-agents that pause: the pause surfaces to the parent's stream and the parent's run pauses", () => {
  it("should surface an interrupt inside a sub-agent as the parent's InterruptFinal, and resume the sub-agent where it stopped", async () => {
    const r = await setup();
    const model = useScript(
      r.agents,
      "s",
      byAgent(
        { "You research": (_v, saw) => (saw ? { text: "the fact is fact" } : callTool("echo", { text: "fact" })) },
        (_v, saw) => (saw ? { text: "Summary" } : callTool("researcher", { task: "find it" })),
      ),
    );
    const subagents = [
      {
        name: "researcher",
        description: "Finds facts",
        systemPrompt: "You research.",
        toolNames: ["echo"],
        interruptOn: { echo: true },
      },
    ];
    const first = await runToEnd(r.agents, { userMessage: "?", llmProvider: "s", subagents });
    expect(types(first.log)).toEqual(["tool_call_step", "run_usage", "interrupt_final"]);
    const [interrupt] = ofType(first.log, "interrupt_final");
    expect(interrupt).toMatchObject({
      agent: "researcher",
      threadId: first.started.threadId,
      payload: { actions: [{ tool: "echo", args: { text: "fact" } }] },
    });
    expect((await r.agents.store.get(first.started.runId))!.status).toBe("INTERRUPTED");
    expect(await r.runs.list({ tool: "echo" }, 10)).toEqual([]);

    const resumed = await runToEnd(r.agents, {
      threadId: first.started.threadId,
      resume: { decisions: [{ type: "approve" }] },
    });
    expect(ofType(resumed.log, "tool_result_step").map((e) => [e.agent, e.tool, e.isError])).toEqual([
      ["researcher", "echo", false],
      [null, "researcher", false],
    ]);
    expect(ofType(resumed.log, "message_final")[0].text).toBe("Summary");
    expect(await r.runs.list({ tool: "echo" }, 10)).toHaveLength(1);
    // Where it stopped: the sub-agent's next model call continues its own conversation.
    const subCall = model.seen.find((s, i) => i > 1 && (s.prompt[0].content as string).startsWith("You research"))!;
    expect(subCall.prompt.slice(1).map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("should surface a park inside a sub-agent as the parent's SuspendedFinal, and continue the sub-agent once it is answered", async () => {
    const r = await setup();
    useScript(
      r.agents,
      "s",
      byAgent(
        { "You wait": (_v, saw) => (saw ? { text: "approved" } : callTool("approve_spend", { amount: 3 })) },
        (_v, saw) => (saw ? { text: "done" } : callTool("waiter", { task: "get approval" })),
      ),
    );
    const subagents = [
      { name: "waiter", description: "Waits", systemPrompt: "You wait.", toolNames: ["approve_spend"] },
    ];
    const first = await runToEnd(r.agents, { userMessage: "?", llmProvider: "s", subagents });
    const [suspended] = ofType(first.log, "suspended_final");
    expect(suspended).toMatchObject({
      agent: "waiter",
      threadId: first.started.threadId,
      interactionIds: [expect.any(String)],
    });
    expect((await r.agents.store.get(first.started.runId))!.status).toBe("SUSPENDED");

    const resumed = await runToEnd(r.agents, {
      threadId: first.started.threadId,
      resume: { answers: { [suspended.interactionIds[0]]: { ok: true } } },
    });
    expect(ofType(resumed.log, "tool_result_step").map((e) => [e.agent, e.tool, e.isError])).toEqual([
      ["waiter", "approve_spend", false],
      [null, "waiter", false],
    ]);
    expect(ofType(resumed.log, "tool_result_step")[1].result).toBe("approved");
    expect(types(resumed.log).at(-1)).toBe("message_final");
  });

  it("should surface a sub-agent's ask_caller as the parent's AsksFinal, and give the sub-agent the caller's answer", async () => {
    const r = await setup();
    const { model, first } = await startPainter(r);
    const [asks] = ofType(first.log, "asks_final");
    expect(asks).toMatchObject({ agent: "painter", asks: [{ question: "Which colour?", to: "caller" }] });
    const askId = (asks.asks[0] as { id: string }).id;
    const resumed = await runToEnd(r.agents, {
      threadId: first.started.threadId,
      resume: { answers: { [askId]: "blue" } },
    });
    expect(ofType(resumed.log, "tool_result_step").find((e) => e.tool === "painter")).toMatchObject({
      agent: null,
      result: 'painted "blue"',
    });
    expect(
      model.seen.some(
        (s) => (s.prompt[0].content as string).startsWith("You paint") && s.tools?.some((t) => t.name === "ask_caller"),
      ),
    ).toBe(true);
  });

  it("should continue the run by itself when a sub-agent's ask is answered as an interaction, the sub-agent reading the answer", async () => {
    const r = await setup();
    const { first } = await startPainter(r);
    const [asks] = ofType(first.log, "asks_final");
    const askId = (asks.asks[0] as { id: string }).id;
    expect(await r.agents.store.get(first.started.runId)).toMatchObject({ status: "ASKED" });
    await r.interactions.answer(askId, "green", as("USER"));
    await until(
      "the asked run to end",
      async () => (await r.agents.store.get(first.started.runId))?.status === "SUCCEEDED",
    );
    const log = await r.agents.store.events(first.started.runId, asks.seq);
    expect(ofType(log, "tool_result_step").find((e) => e.tool === "painter")).toMatchObject({
      agent: null,
      result: 'painted "green"',
    });
    expect(ofType(log, "message_final")).toEqual([expect.objectContaining({ text: "done" })]);
  });

  it("should surface an interrupt of a nested sub-agent through every parent, and resume it at depth", async () => {
    const r = await setup();
    useScript(
      r.agents,
      "s",
      byAgent(
        {
          "You fetch": (_v, saw) => (saw ? { text: "fetched" } : callTool("echo", { text: "deep" })),
          "You lead": (_v, saw) => (saw ? { text: "led" } : callTool("fetcher", { task: "fetch" })),
        },
        (_v, saw) => (saw ? { text: "top done" } : callTool("lead", { task: "lead" })),
      ),
    );
    const subagents = [
      {
        name: "lead",
        description: "Leads",
        systemPrompt: "You lead.",
        subagents: [
          {
            name: "fetcher",
            description: "Fetches",
            systemPrompt: "You fetch.",
            toolNames: ["echo"],
            interruptOn: { echo: true },
          },
        ],
      },
    ];
    const first = await runToEnd(r.agents, { userMessage: "?", llmProvider: "s", subagents });
    expect(ofType(first.log, "interrupt_final")[0]).toMatchObject({ agent: "lead/fetcher" });
    await expect(
      r.agents.start({
        options: {
          threadId: first.started.threadId,
          resume: { decisions: [{ type: "approve" }, { type: "approve" }] },
        },
        caller: as("USER"),
      }),
    ).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: "/resume/decisions" }],
    });
    const resumed = await runToEnd(r.agents, {
      threadId: first.started.threadId,
      resume: { decisions: [{ type: "approve" }] },
    });
    expect(ofType(resumed.log, "tool_result_step").map((e) => [e.agent, e.tool, e.result])).toEqual([
      ["lead/fetcher", "echo", expect.anything()],
      ["lead", "fetcher", "fetched"],
      [null, "lead", "led"],
    ]);
    expect(ofType(resumed.log, "message_final")[0].text).toBe("top done");
  });

  it("should keep a secret tool's result out of the stored pause of a sub-agent", async () => {
    const r = await setup();
    useScript(
      r.agents,
      "s",
      byAgent(
        {
          "You guard": (v, saw) =>
            !saw
              ? callTool("vault_read", { name: "db-password" })
              : v.prompt.filter((m) => m.role === "tool").length === 1
                ? callTool("echo", { text: "next" })
                : { text: "ok" },
        },
        (_v, saw) => (saw ? { text: "done" } : callTool("guard", { task: "read" })),
      ),
    );
    const first = await runToEnd(
      r.agents,
      {
        userMessage: "?",
        llmProvider: "s",
        subagents: [
          {
            name: "guard",
            description: "Guards",
            systemPrompt: "You guard.",
            toolNames: ["vault_read", "echo"],
            interruptOn: { echo: true },
          },
        ],
      },
      as("ADMIN"),
    );
    expect(types(first.log).at(-1)).toBe("interrupt_final");
    const stored = JSON.stringify([first.log, await r.agents.store.get(first.started.runId)]);
    expect(stored).not.toContain("s3cr3t-for-db-password");
  });
});

describe("SubAgentSpec.strategy", () => {
  it("should refuse an unknown strategy name with a clear error naming the known ones, and store nothing", async () => {
    const r = await setup();
    await expect(
      r.agents.start({
        options: { userMessage: "?", subagents: [{ name: "x", description: "d", strategy: "nope" }] },
        caller: as("USER"),
      }),
    ).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: "/subagents/0/strategy", message: 'no loop strategy named "nope" (known: tools)' }],
    });
    expect(await r.db.agentRun.count()).toBe(0);
  });

  it("should run a sub-agent that names the default strategy", async () => {
    const r = await setup();
    useScript(
      r.agents,
      "s",
      byAgent({ "You x": () => ({ text: "x done" }) }, (_v, saw) =>
        saw ? { text: "done" } : callTool("x", { task: "t" }),
      ),
    );
    const { log } = await runToEnd(r.agents, {
      userMessage: "?",
      llmProvider: "s",
      subagents: [{ name: "x", description: "d", systemPrompt: "You x.", strategy: "tools" }],
    });
    expect(ofType(log, "tool_result_step")[0]).toMatchObject({ tool: "x", result: "x done" });
  });
});

/**
 * A run whose parent calls the sub-agent "painter", which asks the caller "Which colour?"
 * and paints the answer: started, and stopped at its ask.
 */
async function startPainter(r: TestRuntime) {
  const model = useScript(
    r.agents,
    "s",
    byAgent(
      {
        "You paint": (v, saw) =>
          saw
            ? {
                text: `painted ${JSON.stringify((v.prompt.at(-1)!.content as { output: { value: unknown } }[])[0].output.value)}`,
              }
            : callTool("ask_caller", { question: "Which colour?" }),
      },
      (_v, saw) => (saw ? { text: "done" } : callTool("painter", { task: "paint" })),
    ),
  );
  const first = await runToEnd(r.agents, {
    userMessage: "?",
    llmProvider: "s",
    subagents: [{ name: "painter", description: "Paints", systemPrompt: "You paint.", askCaller: true }],
  });
  return { model, first };
}
