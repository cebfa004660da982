import { afterEach, describe, expect, it } from "vitest";
import { until } from "../graphql/support.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { cancelApp, inFlight, toolRunsOf, type Calls } from "./cancel-support.ts";
import { useScript } from "./support.ts";

/**
 * Cancel and the tool runs an agent run left PARKED (docs/agent-stream.md §4.1): a run
 * cancelled with a parked call beside one in flight ends the parked tool run CANCELLED and
 * its interaction with it, so nobody answers a question of a run that is gone; cancel
 * during a continuation of a parked sub-agent stops it. Runs on the database TAI_TEST_DB selects.
 */

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

const caller = as("USER");

async function setup() {
  const calls: Calls = { started: [], aborted: [] };
  rt = await testRuntime({ app: cancelApp(calls) });
  return { r: rt, calls };
}

describe("cancelling an agent run with a parked tool call", () => {
  it("should end the parked tool run and its interaction CANCELLED with the run, not leave them to expire", async () => {
    const { r, calls } = await setup();
    useScript(r.agents, "s", (v) =>
      v.prompt.at(-1)?.role === "tool"
        ? { text: "done" }
        : {
            toolCalls: [
              { toolName: "approve_spend", input: { amount: 5 } },
              { toolName: "wait_8s", input: {} },
            ],
          },
    );
    const started = await r.agents.start({
      options: { userMessage: "go", llmProvider: "s", toolNames: ["approve_spend", "wait_8s"] },
      caller,
    });
    await inFlight(r, calls);
    await until("the spend to park", async () => (await toolRunsOf(r, "approve_spend"))[0]?.status === "PARKED");

    const run = await r.agents.cancelFor(started.runId, caller);
    expect(run.status).toBe("CANCELLED");
    const [parked] = await toolRunsOf(r, "approve_spend");
    expect(parked).toMatchObject({ status: "CANCELLED", errorKind: "CANCELLED", parentRunId: started.runId });
    const [question] = await r.interactions.forRun(parked.id);
    expect(question.status).not.toBe("PENDING");
    expect((await toolRunsOf(r)).map((t) => t.status)).toEqual(["CANCELLED"]);
  });

  it("should stop a parked sub-agent's continuation when the run is cancelled while it runs on, its new tool call aborted", async () => {
    const { r, calls } = await setup();
    useScript(r.agents, "s", (v) => {
      const last = v.prompt.at(-1);
      if ((v.prompt[0].content as string).startsWith("You spend")) {
        if (last?.role !== "tool") return { toolCalls: [{ toolName: "approve_spend", input: { amount: 1 } }] };
        return JSON.stringify(last.content).includes("waited")
          ? { text: "spent" }
          : { toolCalls: [{ toolName: "wait_8s", input: {} }] };
      }
      return last?.role === "tool"
        ? { text: "parent done" }
        : { toolCalls: [{ toolName: "spender", input: { task: "spend" } }] };
    });
    const subagents = [
      { name: "spender", description: "Spends", systemPrompt: "You spend.", toolNames: ["approve_spend", "wait_8s"] },
    ];
    const started = await r.agents.start({ options: { userMessage: "go", llmProvider: "s", subagents }, caller });
    await until("the run to suspend", async () => (await r.agents.store.get(started.runId))?.status === "SUSPENDED");
    const [question] = await r.interactions.list("PENDING", as("ADMIN"));
    await r.interactions.answer(question.id, { ok: true }, caller);
    await inFlight(r, calls);
    expect((await r.agents.store.get(started.runId))!.status).toBe("RUNNING");

    const t0 = performance.now();
    const run = await r.agents.cancelFor(started.runId, caller);
    expect(run.status).toBe("CANCELLED");
    expect(calls.aborted).toHaveLength(1);
    expect(calls.aborted[0] - t0).toBeLessThan(1000);
    expect((await toolRunsOf(r)).map((t) => t.status)).toEqual(["CANCELLED"]);
  });

  it("should end a sub-agent's parked call CANCELLED when the run is cancelled while a sibling sub-agent's tool is in flight", async () => {
    const { r, calls } = await setup();
    useScript(r.agents, "s", (v) => {
      const system = v.prompt[0].content as string;
      const saw = v.prompt.at(-1)?.role === "tool";
      if (system.startsWith("You spend"))
        return saw ? { text: "spent" } : { toolCalls: [{ toolName: "approve_spend", input: { amount: 2 } }] };
      if (system.startsWith("You wait"))
        return saw ? { text: "waited" } : { toolCalls: [{ toolName: "wait_8s", input: {} }] };
      return saw
        ? { text: "parent done" }
        : {
            toolCalls: [
              { toolName: "spender", input: { task: "spend" } },
              { toolName: "waiter", input: { task: "wait" } },
            ],
          };
    });
    const subagents = [
      { name: "spender", description: "Spends", systemPrompt: "You spend.", toolNames: ["approve_spend"] },
      { name: "waiter", description: "Waits", systemPrompt: "You wait.", toolNames: ["wait_8s"] },
    ];
    const started = await r.agents.start({ options: { userMessage: "go", llmProvider: "s", subagents }, caller });
    await inFlight(r, calls);
    await until(
      "the sub-agent's spend to park",
      async () => (await toolRunsOf(r, "approve_spend"))[0]?.status === "PARKED",
    );

    expect((await r.agents.cancelFor(started.runId, caller)).status).toBe("CANCELLED");
    expect((await toolRunsOf(r, "approve_spend")).map((t) => [t.status, t.parentRunId])).toEqual([
      ["CANCELLED", started.runId],
    ]);
    expect((await toolRunsOf(r)).map((t) => t.status)).toEqual(["CANCELLED"]);
    expect(await r.interactions.list("PENDING", as("ADMIN"))).toEqual([]);
  });
});
