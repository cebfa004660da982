import { describe, expect, it } from "vitest";
import type { ScriptView, ScriptedTurn } from "../../src/agent/providers/scripted-model.ts";
import type { TestRuntime } from "../helpers/runtime.ts";
import { as } from "../helpers/runtime.ts";
import { agentRuntimePerTest, ofType, runToEnd, useScript } from "./support.ts";

/**
 * A resume's decisions are checked against the actions they answer (docs/agent-stream.md
 * §6, §9.2): a missing decision is named by its action, a decision naming another action's
 * `callId` than the one at its position is refused, and a refused resume claims and
 * stores nothing. Runs on the database TAI_TEST_DB selects.
 */

const setup = agentRuntimePerTest();
const helper = (name: string) => ({
  name,
  description: "Helps",
  systemPrompt: "You help.",
  toolNames: ["echo"],
  interruptOn: { echo: true },
});

/** The parent calls sub-agents `first` and `second` in one turn; each calls the gated `echo` once. */
function siblings(view: ScriptView): ScriptedTurn {
  const saw = view.prompt.at(-1)?.role === "tool";
  if ((view.prompt[0].content as string).startsWith("You help"))
    return saw ? { text: "helped" } : { toolCalls: [{ toolName: "echo", input: { text: "x" } }] };
  return saw
    ? { text: "both done" }
    : {
        toolCalls: [
          { toolName: "first", input: { task: "a" } },
          { toolName: "second", input: { task: "b" } },
        ],
      };
}

async function sharedInterrupt(r: TestRuntime) {
  useScript(r.agents, "s", siblings);
  const first = await runToEnd(r.agents, {
    userMessage: "?",
    llmProvider: "s",
    subagents: [helper("first"), helper("second")],
  });
  const [interrupt] = ofType(first.log, "interrupt_final");
  const actions = (interrupt.payload as { actions: { callId: string; agent: string }[] }).actions;
  return { threadId: first.started.threadId, runId: first.started.runId, interrupt, actions };
}

/** The refused resume left the pause as it was: still INTERRUPTED, nothing run. */
async function unchanged(r: TestRuntime, runId: string) {
  expect((await r.agents.store.get(runId))!.status).toBe("INTERRUPTED");
  expect(await r.runs.list({ tool: "echo" }, 10)).toEqual([]);
}

describe("a resume's decisions against the actions of a shared InterruptFinal", () => {
  it("should refuse decisions for only some of the actions with BAD_USER_INPUT naming each missing one, storing nothing", async () => {
    const r = await setup();
    const { threadId, runId, actions } = await sharedInterrupt(r);
    const refused = r.agents.start({
      options: { threadId, resume: { decisions: [{ type: "approve" }] } },
      caller: as("USER"),
    });
    await expect(refused).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [
        { path: "/resume/decisions", message: expect.stringContaining("got 1") },
        { path: "/resume/decisions/1", message: `is missing: a decision for echo (call ${actions[1].callId})` },
      ],
    });
    await unchanged(r, runId);
    const resumed = await runToEnd(r.agents, {
      threadId,
      resume: { decisions: [{ type: "approve" }, { type: "approve" }] },
    });
    expect(ofType(resumed.log, "message_final")[0].text).toBe("both done");
  });

  it("should refuse decisions whose callIds name the actions in another order, or no action, instead of applying them to the wrong calls", async () => {
    const r = await setup();
    const { threadId, runId, actions } = await sharedInterrupt(r);
    const swapped = [
      { type: "approve", callId: actions[1].callId },
      { type: "reject", callId: actions[0].callId },
    ];
    await expect(
      r.agents.start({ options: { threadId, resume: { decisions: swapped } }, caller: as("USER") }),
    ).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [
        { path: "/resume/decisions/0/callId", message: expect.stringContaining(actions[0].callId) },
        { path: "/resume/decisions/1/callId", message: expect.stringContaining(actions[1].callId) },
      ],
    });
    const unknown = [{ type: "approve", callId: "no-such-call" }, { type: "approve" }];
    await expect(
      r.agents.start({ options: { threadId, resume: { decisions: unknown } }, caller: as("USER") }),
    ).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: "/resume/decisions/0/callId" }],
    });
    await unchanged(r, runId);

    const named = actions.map((a, i) => ({ type: i === 0 ? "approve" : "reject", callId: a.callId }));
    const resumed = await runToEnd(r.agents, { threadId, resume: { decisions: named } });
    // Sibling sub-agents run in parallel: their results arrive in either order.
    expect(
      ofType(resumed.log, "tool_result_step")
        .filter((e) => e.tool === "echo")
        .map((e) => [e.agent, e.isError])
        .sort(),
    ).toEqual([
      ["first", false],
      ["second", true],
    ]);
  });

  it("should refuse a single agent's decision naming an unknown callId, storing nothing", async () => {
    const r = await setup();
    useScript(r.agents, "s", (v) =>
      v.prompt.at(-1)?.role === "tool" ? { text: "done" } : { toolCalls: [{ toolName: "echo", input: { text: "x" } }] },
    );
    const first = await runToEnd(r.agents, {
      userMessage: "?",
      llmProvider: "s",
      toolNames: ["echo"],
      interruptOn: { echo: true },
    });
    const { threadId, runId } = first.started;
    await expect(
      r.agents.start({ options: { threadId, resume: { type: "approve", callId: "elsewhere" } }, caller: as("USER") }),
    ).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: "/resume/decisions/0/callId" }],
    });
    await unchanged(r, runId);
  });
});
