import { afterEach, describe, expect, it } from "vitest";
import { AgentRunFailedError } from "../../src/agent/agent-errors.ts";
import type { AgentLogEntry } from "../../src/agent/events.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { cancelApp, inFlight, toolRunsOf, waitThenAnswer, type Calls } from "./cancel-support.ts";
import { useScript } from "./support.ts";

/**
 * Cancel stops an agent's tools (issue 25, docs/agent-stream.md §4.1): a tool that waits
 * 8 s unless aborted is in flight when the agent run, the tool run that started it, or
 * the server (shutdown) cancels it; the tool's signal fires within 1 s and every record
 * ends CANCELLED.
 */

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

async function setup(graceSeconds = 2) {
  const calls: Calls = { started: [], aborted: [] };
  rt = await testRuntime({ app: cancelApp(calls), config: { shutdownGraceSeconds: graceSeconds } });
  return { r: rt, calls };
}

const caller = as("USER");
/** Collects a run's log until it ends. */
async function logOf(r: TestRuntime, runId: string): Promise<AgentLogEntry[]> {
  const log: AgentLogEntry[] = [];
  for await (const e of r.agents.events(runId, 0, new AbortController().signal)) log.push(e);
  return log;
}

/** The run ended CANCELLED as documented: status, a `run_failed` kind CANCELLED last, and a drain raising it. */
async function expectCancelled(r: TestRuntime, runId: string) {
  const log = await logOf(r, runId);
  expect(log.at(-1)).toMatchObject({ type: "run_failed", final: true, kind: "CANCELLED" });
  expect(log.filter((e) => e.final)).toHaveLength(1);
  expect((await r.agents.store.get(runId))!.status).toBe("CANCELLED");
  const err = await r.agents.awaitEnd({ runId, threadId: "", agent: "tools_agent" }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AgentRunFailedError);
  expect(err).toMatchObject({ kind: "CANCELLED" });
  return log;
}

describe("cancelling an agent run stops its tools", () => {
  it("should abort the tool in flight within 1 s, and end the tool run and the agent run CANCELLED without asking the model again", async () => {
    const { r, calls } = await setup();
    const model = useScript(r.agents, "s", waitThenAnswer);
    const started = await r.agents.start({
      options: { userMessage: "wait", llmProvider: "s", toolNames: ["wait_8s"] },
      caller,
    });
    await inFlight(r, calls);

    const t0 = performance.now();
    expect(r.agents.cancel(started.runId)).toBe(true);
    const log = await expectCancelled(r, started.runId);
    expect(calls.aborted).toHaveLength(1);
    expect(calls.aborted[0] - t0).toBeLessThan(1000);
    expect(performance.now() - t0).toBeLessThan(1000);
    const [toolRun] = await toolRunsOf(r);
    expect(toolRun).toMatchObject({
      status: "CANCELLED",
      errorKind: "CANCELLED",
      door: "agent",
      parentRunId: started.runId,
    });
    // The aborted call is not turned into a result the model answers.
    expect(model.seen).toHaveLength(1);
    expect(log.some((e) => e.type === "message_final" || e.type === "message_delta")).toBe(false);
  });

  it("should store a sequential call the batch reaches after the cancel CANCELLED without running its body", async () => {
    const { r, calls } = await setup();
    useScript(r.agents, "s", [
      {
        toolCalls: [
          { toolName: "wait_8s", input: {} },
          { toolName: "serial", input: { label: "after", ms: 1 } },
        ],
      },
      { text: "done" },
    ]);
    const started = await r.agents.start({
      options: { userMessage: "wait", llmProvider: "s", toolNames: ["wait_8s", "serial"] },
      caller,
    });
    await inFlight(r, calls);
    r.agents.cancel(started.runId);
    await expectCancelled(r, started.runId);
    // No attempt: the body never ran.
    expect((await toolRunsOf(r, "serial")).map((t) => [t.status, t.attempts.length])).toEqual([["CANCELLED", 0]]);
  });

  it("should cancel the agent run and its tool when the tool run that started the agent is cancelled", async () => {
    const { r, calls } = await setup();
    useScript(r.agents, "s", waitThenAnswer);
    const outer = r.dispatcher.run({
      tool: "tools_agent",
      input: { userMessage: "wait", llmProvider: "s", toolNames: ["wait_8s"] },
      caller,
      door: "graphql",
    });
    await inFlight(r, calls);
    const [agentTool] = await toolRunsOf(r, "tools_agent");
    const [agentRunId] = r.agents.runningIds();

    const t0 = performance.now();
    await r.dispatcher.cancelFor(caller, agentTool.id);
    expect((await outer).status).toBe("CANCELLED");
    await expectCancelled(r, agentRunId);
    expect(calls.aborted).toHaveLength(1);
    expect(calls.aborted[0] - t0).toBeLessThan(1000);
    expect(performance.now() - t0).toBeLessThan(1000);
    expect((await toolRunsOf(r)).map((t) => [t.status, t.parentRunId])).toEqual([["CANCELLED", agentRunId]]);
    expect((await r.runs.get(agentTool.id))!.status).toBe("CANCELLED");
  });

  it("should stop a sub-agent's tool in flight when its parent run is cancelled, and not go on with the parent", async () => {
    const { r, calls } = await setup();
    const model = useScript(r.agents, "s", (v) => {
      if ((v.prompt[0].content as string).startsWith("You wait")) return waitThenAnswer(v);
      return v.prompt.at(-1)?.role === "tool"
        ? { text: "parent done" }
        : { toolCalls: [{ toolName: "waiter", input: { task: "wait" } }] };
    });
    const subagents = [{ name: "waiter", description: "Waits", systemPrompt: "You wait.", toolNames: ["wait_8s"] }];
    const started = await r.agents.start({ options: { userMessage: "go", llmProvider: "s", subagents }, caller });
    await inFlight(r, calls);

    const t0 = performance.now();
    r.agents.cancel(started.runId);
    await expectCancelled(r, started.runId);
    expect(calls.aborted).toHaveLength(1);
    expect(calls.aborted[0] - t0).toBeLessThan(1000);
    expect(performance.now() - t0).toBeLessThan(1000);
    expect((await toolRunsOf(r)).map((t) => t.status)).toEqual(["CANCELLED"]);
    // Two model calls (the parent's, the sub-agent's); neither is asked again.
    expect(model.seen).toHaveLength(2);
  });
});

describe("shutdown drains agent runs and tool runs against one deadline", () => {
  it("should finish within the grace period plus 1 s, cancelling agent runs, their tools and the agent dispatched as a tool", async () => {
    const { r, calls } = await setup(2);
    useScript(r.agents, "s", waitThenAnswer);
    const started = await r.agents.start({
      options: { userMessage: "wait", llmProvider: "s", toolNames: ["wait_8s"] },
      caller,
    });
    const outer = r.dispatcher.run({
      tool: "tools_agent",
      input: { userMessage: "wait", llmProvider: "s", toolNames: ["wait_8s"] },
      caller,
      door: "graphql",
    });
    const direct = r.dispatcher.run({ tool: "wait_8s", input: {}, caller, door: "graphql" });
    await inFlight(r, calls, 3);

    const t0 = performance.now();
    await r.drain();
    const took = performance.now() - t0;
    expect(took).toBeGreaterThanOrEqual(1900);
    expect(took).toBeLessThan(3000);
    expect(calls.aborted).toHaveLength(3);
    expect((await outer).status).toBe("CANCELLED");
    expect((await direct).status).toBe("CANCELLED");
    expect((await toolRunsOf(r)).map((t) => t.status)).toEqual(["CANCELLED", "CANCELLED", "CANCELLED"]);
    const agentRuns = await r.db.agentRun.findMany();
    expect(agentRuns.map((a) => a.status)).toEqual(["CANCELLED", "CANCELLED"]);
    const log = await logOf(r, started.runId);
    expect(log.at(-1)).toMatchObject({
      type: "run_failed",
      kind: "CANCELLED",
      message: "cancelled by server shutdown",
    });
  });
});
