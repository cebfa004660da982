import { afterEach, describe, expect, it } from "vitest";
import type { ScriptView } from "../../src/agent/providers/scripted-model.ts";
import { buildApp } from "../../src/server/build-app.ts";
import { gql, until } from "../graphql/support.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { agentTestApp } from "./fixtures.ts";
import { ofType, runToEnd, types, useScript } from "./support.ts";

/** Calls `slow` once; once its result is in, answers. */
const callThenAnswer = (view: ScriptView) =>
  view.prompt.some((m) => m.role === "tool")
    ? { text: "Done after the fork." }
    : { toolCalls: [{ toolName: "slow", input: { label: "x", ms: 0 } }] };

describe("resume_checkpoint_id forks past an aborted turn, distinct from resume (the interrupt answer)", () => {
  let rt: TestRuntime | undefined;
  afterEach(async () => {
    await rt?.dispose();
    rt = undefined;
  });
  async function setup(): Promise<TestRuntime> {
    rt = await testRuntime({ app: agentTestApp() });
    return rt;
  }

  /** A run that timed out (recursion limit 1) after its first tool call. */
  async function timedOut(r: TestRuntime, caller = as("USER")) {
    const model = useScript(r.agents, "s", callThenAnswer);
    const { started, log } = await runToEnd(
      r.agents,
      { userMessage: "do it", toolNames: ["slow"], llmProvider: "s", recursionLimit: 1 },
      caller,
    );
    expect(log.at(-1)).toMatchObject({ type: "run_failed", kind: "TIMEOUT" });
    return { started, log, model };
  }

  it("should fork a failed (timed-out) run into a new run that continues from its checkpoint, leaving the original untouched", async () => {
    const r = await setup();
    const { started, log: original, model } = await timedOut(r);
    const before = await r.agents.store.get(started.runId);
    const { started: fork, log } = await runToEnd(r.agents, {
      threadId: started.threadId,
      resumeCheckpointId: started.runId,
      recursionLimit: 5,
    });
    expect(fork.runId).not.toBe(started.runId);
    expect(fork.threadId).toBe(started.threadId);
    expect(types(log)).toEqual([
      "tool_call_step",
      "tool_result_step",
      ...Array(4).fill("message_delta"),
      "run_usage",
      "message_final",
    ]);
    // The fork re-ran the aborted turn from the checkpoint: the model saw the user's message once, and none of the
    // aborted turn's calls.
    const forkFirstCall = model.seen[1].prompt;
    expect(forkFirstCall.filter((m) => m.role === "user")).toHaveLength(1);
    expect(forkFirstCall.some((m) => m.role === "tool" || m.role === "assistant")).toBe(false);
    // The original is untouched: same status, same record, same log.
    expect(await r.agents.store.get(started.runId)).toEqual(before);
    expect(await r.agents.store.events(started.runId, 0)).toEqual(original);
    // The thread now reads as the fork's branch; a later run continues from it.
    const thread = await r.agents.thread(started.threadId, as("USER"));
    expect(thread!.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    const later = useScript(r.agents, "s2", [{ text: "Still here." }]);
    await runToEnd(r.agents, { threadId: started.threadId, userMessage: "and now?", llmProvider: "s2" });
    expect(later.seen[0].prompt.filter((m) => m.role === "user")).toHaveLength(2);
    expect(later.seen[0].prompt.filter((m) => m.role === "tool")).toHaveLength(1);
  });

  it("should fork a cancelled run too", async () => {
    const r = await setup();
    const model = useScript(
      r.agents,
      "slow",
      [{ text: Array.from({ length: 200 }, (_, i) => `w${i}`).join(" ") }, { text: "Short this time." }],
      20,
    );
    const started = await r.agents.start({ options: { userMessage: "talk", llmProvider: "slow" }, caller: as("USER") });
    // The turn's text is held until the turn ends (docs/agent-stream.md §2.2): the model being called is the sign it
    // runs.
    await until("the model to be streaming", () => model.seen.length > 0);
    r.agents.cancel(started.runId);
    await until("the run was cancelled", async () => (await r.agents.store.get(started.runId))?.status === "CANCELLED");
    const { log } = await runToEnd(r.agents, { threadId: started.threadId, resumeCheckpointId: started.runId });
    expect(ofType(log, "message_final")).toEqual([expect.objectContaining({ text: "Short this time." })]);
  });

  it("should fork a run interrupted by a restart (failed by the orphan sweep, its checkpoint kept)", async () => {
    const r = await setup();
    useScript(r.agents, "ok", [{ text: "Answered after the restart." }]);
    await r.db.thread.create({ data: { id: "t-restart", owner: "test-user" } });
    await r.db.agentRun.create({
      data: {
        id: "interrupted",
        agent: "tools_agent",
        threadId: "t-restart",
        status: "RUNNING",
        input: { userMessage: "hello", llmProvider: "ok" },
        callerRole: "USER",
        callerKey: "test-user",
        checkpoint: { instanceId: "gone-host/1/x", mark: 0 },
      },
    });
    await r.agents.recover([]);
    expect(await r.agents.store.get("interrupted")).toMatchObject({
      status: "FAILED",
      final: { kind: "INTERNAL", message: "interrupted by restart" },
    });
    const { log } = await runToEnd(r.agents, { resumeCheckpointId: "interrupted" });
    expect(ofType(log, "message_final")).toEqual([expect.objectContaining({ text: "Answered after the restart." })]);
  });

  it("should refuse an unknown checkpoint id and one the caller may not see with the same NOT_FOUND, storing nothing", async () => {
    const r = await setup();
    const { started } = await timedOut(r);
    const runs = await r.db.agentRun.count();
    const rows = await r.db.threadMessage.count();
    const stranger = { role: "USER" as const, keyName: "someone-else", keyId: null };
    const unknown = r.agents.start({ options: { resumeCheckpointId: "no-such-run" }, caller: as("USER") });
    await expect(unknown).rejects.toMatchObject({ code: "NOT_FOUND", message: 'no checkpoint "no-such-run"' });
    const hidden = r.agents.start({ options: { resumeCheckpointId: started.runId }, caller: stranger });
    await expect(hidden).rejects.toMatchObject({ code: "NOT_FOUND", message: `no checkpoint "${started.runId}"` });
    expect(await r.db.agentRun.count()).toBe(runs);
    expect(await r.db.threadMessage.count()).toBe(rows);
  });

  it("should refuse a checkpoint of a run in another thread, and a run whose turn was not aborted", async () => {
    const r = await setup();
    const { started } = await timedOut(r);
    useScript(r.agents, "ok", [{ text: "fine" }]);
    const other = await runToEnd(r.agents, { userMessage: "hello", llmProvider: "ok" });
    const runs = await r.db.agentRun.count();
    await expect(
      r.agents.start({
        options: { threadId: other.started.threadId, resumeCheckpointId: started.runId },
        caller: as("USER"),
      }),
    ).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: "/resumeCheckpointId", message: "is a checkpoint of another thread" }],
    });
    await expect(
      r.agents.start({ options: { resumeCheckpointId: other.started.runId }, caller: as("USER") }),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("only a failed or cancelled run"),
    });
    expect(await r.db.agentRun.count()).toBe(runs);
  });

  it("should keep resume distinct: with resume, resumeCheckpointId stays the paused run's guard and a failed run has nothing to resume", async () => {
    const r = await setup();
    const { started } = await timedOut(r);
    await expect(
      r.agents.start({
        options: { threadId: started.threadId, resumeCheckpointId: started.runId, resume: {} },
        caller: as("USER"),
      }),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("has nothing to resume"),
    });
  });

  it("should fork through GraphQL runAgent, and agentRun(id).forkOf links the new run to the forked one", async () => {
    const r = await setup();
    const app = buildApp(r);
    const key = await r.keys.create("forker", "USER");
    const headers = { authorization: `Bearer ${key}` };
    useScript(r.agents, "s", callThenAnswer);
    const first = await gql<{ runAgent: { runId: string; threadId: string } }>(
      app,
      `mutation($i: AgentRunInput!) { runAgent(input: $i) { runId threadId } }`,
      {
        variables: { i: { userMessage: "do it", toolNames: ["slow"], llmProvider: "s", recursionLimit: 1 } },
        headers,
      },
    );
    expect(first.body.errors?.[0].extensions).toMatchObject({ code: "AGENT_RUN_FAILED", kind: "TIMEOUT" });
    const failed = await r.db.agentRun.findFirstOrThrow();
    const forked = await gql<{ runAgent: { runId: string; final: { text: string } } }>(
      app,
      `mutation($i: AgentRunInput!) { runAgent(input: $i) { runId final { ... on MessageFinal { text } } } }`,
      {
        variables: { i: { threadId: failed.threadId, resumeCheckpointId: failed.id, recursionLimit: 5 } },
        headers,
      },
    );
    expect(forked.body.data?.runAgent.final).toEqual({ text: "Done after the fork." });
    const link = await gql<{ agentRun: { forkOf: string | null } }>(
      app,
      `query($id: ID!) { agentRun(id: $id) { forkOf } }`,
      {
        variables: { id: forked.body.data!.runAgent.runId },
        headers,
      },
    );
    expect(link.body.data?.agentRun.forkOf).toBe(failed.id);
    const missing = await gql(app, `mutation($i: AgentRunInput!) { runAgent(input: $i) { runId } }`, {
      variables: { i: { resumeCheckpointId: "nope" } },
      headers,
    });
    expect(missing.body.errors?.[0].extensions).toMatchObject({ code: "NOT_FOUND" });
  });
});
