import { describe, expect, it } from "vitest";
import type { ScriptView, ScriptedTurn } from "../../src/agent/providers/scripted-model.ts";
import { as } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";
import { agentRuntimePerTest, ofType, runToEnd, types, useScript } from "./support.ts";

const setup = agentRuntimePerTest();

/**
 * A script by agent: each sub-agent is recognised by the start of its system prompt; the parent calls `first` and
 * `second` in one turn.
 */
function siblings(sub: (view: ScriptView, sawResult: boolean) => ScriptedTurn) {
  return (view: ScriptView): ScriptedTurn => {
    const sawResult = view.prompt.at(-1)?.role === "tool";
    if ((view.prompt[0].content as string).startsWith("You help")) return sub(view, sawResult);
    return sawResult
      ? { text: "both done" }
      : {
          toolCalls: [
            { toolName: "first", input: { task: "a" } },
            { toolName: "second", input: { task: "b" } },
          ],
        };
  };
}

const helper = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: "Helps",
  systemPrompt: "You help.",
  ...extra,
});

describe("sibling sub-agents that pause the same way share the run's one terminal (docs/agent-stream.md §9.2)", () => {
  it("should list both sub-agents' gated calls in one InterruptFinal, each attributed, and continue both on one resume", async () => {
    const r = await setup();
    useScript(
      r.agents,
      "s",
      siblings((v, saw) =>
        saw
          ? { text: `helped ${(v.prompt[1].content as string) ?? ""}` }
          : { toolCalls: [{ toolName: "echo", input: { text: "x" } }] },
      ),
    );
    const subagents = [
      helper("first", { toolNames: ["echo"], interruptOn: { echo: true } }),
      helper("second", { toolNames: ["echo"], interruptOn: { echo: true } }),
    ];
    const first = await runToEnd(r.agents, { userMessage: "?", llmProvider: "s", subagents });
    const [interrupt] = ofType(first.log, "interrupt_final");
    expect(types(first.log).filter((t) => t === "tool_result_step")).toEqual([]);
    expect(interrupt).toMatchObject({
      agent: null,
      threadId: first.started.threadId,
      payload: {
        actions: [
          expect.objectContaining({ tool: "echo", agent: "first" }),
          expect.objectContaining({ tool: "echo", agent: "second" }),
        ],
      },
    });
    expect((await r.agents.store.get(first.started.runId))!.status).toBe("INTERRUPTED");

    await expect(
      r.agents.start({
        options: { threadId: first.started.threadId, resume: { decisions: [{ type: "approve" }] } },
        caller: as("USER"),
      }),
    ).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: "/resume/decisions" }, { path: "/resume/decisions/1" }],
    });
    const resumed = await runToEnd(r.agents, {
      threadId: first.started.threadId,
      resume: {
        interruptId: interrupt.interruptId,
        decisions: [{ type: "approve" }, { type: "reject", message: "not this one" }],
      },
    });
    expect(ofType(resumed.log, "tool_result_step").map((e) => [e.agent, e.tool, e.isError])).toEqual(
      expect.arrayContaining([
        ["first", "echo", false],
        ["second", "echo", true],
        [null, "first", false],
        [null, "second", false],
      ]),
    );
    expect(ofType(resumed.log, "tool_call_step").filter((e) => e.agent !== null)).toEqual([
      expect.objectContaining({ agent: "first", resumedInterruptId: interrupt.interruptId }),
      expect.objectContaining({ agent: "second", resumedInterruptId: interrupt.interruptId }),
    ]);
    expect(ofType(resumed.log, "message_final")[0].text).toBe("both done");
    expect(await r.runs.list({ tool: "echo" }, 10)).toHaveLength(1);
  });

  it("should list every interaction of two parked sub-agents in one SuspendedFinal, and continue both once all are answered", async () => {
    const r = await setup();
    useScript(
      r.agents,
      "s",
      siblings((_v, saw) =>
        saw ? { text: "approved" } : { toolCalls: [{ toolName: "approve_spend", input: { amount: 3 } }] },
      ),
    );
    const subagents = [
      helper("first", { toolNames: ["approve_spend"] }),
      helper("second", { toolNames: ["approve_spend"] }),
    ];
    const first = await runToEnd(r.agents, { userMessage: "?", llmProvider: "s", subagents });
    const [suspended] = ofType(first.log, "suspended_final");
    expect(suspended.interactionIds).toHaveLength(2);
    expect(ofType(first.log, "tool_result_step")).toEqual([]);
    expect((await r.runs.list({ tool: "approve_spend" }, 10)).map((run) => run.status)).toEqual(["PARKED", "PARKED"]);

    const answers = Object.fromEntries(suspended.interactionIds.map((id) => [id, { ok: true }]));
    const resumed = await runToEnd(r.agents, { threadId: first.started.threadId, resume: { answers } });
    expect(
      ofType(resumed.log, "tool_result_step")
        .filter((e) => e.agent === null)
        .map((e) => [e.tool, e.result]),
    ).toEqual([
      ["first", "approved"],
      ["second", "approved"],
    ]);
    expect(ofType(resumed.log, "message_final")[0].text).toBe("both done");
  });

  it("should list both sub-agents' asks in one AsksFinal, each attributed, and continue by itself once both are answered", async () => {
    const r = await setup();
    useScript(
      r.agents,
      "s",
      siblings((v, saw) =>
        saw
          ? {
              text: `got ${JSON.stringify((v.prompt.at(-1)!.content as { output: { value: unknown } }[])[0].output.value)}`,
            }
          : { toolCalls: [{ toolName: "ask_caller", input: { question: `For ${v.prompt[1].content as string}?` } }] },
      ),
    );
    const subagents = [helper("first", { askCaller: true }), helper("second", { askCaller: true })];
    const first = await runToEnd(r.agents, { userMessage: "?", llmProvider: "s", subagents });
    const [asks] = ofType(first.log, "asks_final");
    expect(asks.asks).toEqual([
      expect.objectContaining({ agent: "first", to: "caller" }),
      expect.objectContaining({ agent: "second", to: "caller" }),
    ]);
    const [a, b] = asks.asks.map((x) => (x as { id: string }).id);
    await r.interactions.answer(a, "one", as("USER"));
    expect((await r.agents.store.get(first.started.runId))!.status).toBe("ASKED");
    await r.interactions.answer(b, "two", as("USER"));
    await until(
      "the asked run to end",
      async () => (await r.agents.store.get(first.started.runId))?.status === "SUCCEEDED",
    );
    const log = await r.agents.store.events(first.started.runId, asks.seq);
    expect(
      ofType(log, "tool_result_step")
        .filter((e) => e.agent === null)
        .map((e) => [e.tool, e.result]),
    ).toEqual([
      ["first", 'got "one"'],
      ["second", 'got "two"'],
    ]);
  });

  it("should still give a CONFLICT result to a sibling that paused another way, cancelling what it waits on", async () => {
    const r = await setup();
    useScript(
      r.agents,
      "s",
      siblings((v, saw) =>
        saw
          ? { text: "ok" }
          : {
              toolCalls: [
                (v.tools ?? []).some((t) => t.name === "echo")
                  ? { toolName: "echo", input: { text: "x" } }
                  : { toolName: "approve_spend", input: { amount: 1 } },
              ],
            },
      ),
    );
    const subagents = [
      helper("first", { toolNames: ["echo"], interruptOn: { echo: true } }),
      helper("second", { toolNames: ["approve_spend"] }),
    ];
    const { log } = await runToEnd(r.agents, { userMessage: "?", llmProvider: "s", subagents });
    expect(ofType(log, "interrupt_final")[0]).toMatchObject({ agent: "first" });
    expect(ofType(log, "tool_result_step")).toEqual([
      expect.objectContaining({
        agent: null,
        tool: "second",
        isError: true,
        result: expect.objectContaining({ kind: "CONFLICT" }),
      }),
    ]);
    expect((await r.runs.list({ tool: "approve_spend" }, 10)).map((run) => run.status)).toEqual(["CANCELLED"]);
  });
});
