import { afterEach, describe, expect, it } from "vitest";
import type { AgentService } from "../../src/agent/agent-service.ts";
import type { AgentLogEntry } from "../../src/agent/events.ts";
import type { ScriptView } from "../../src/agent/providers/scripted-model.ts";
import { z } from "zod";
import { park } from "../../src/interactions/park.ts";
import { buildApp } from "../../src/server/build-app.ts";
import { until } from "../graphql/support.ts";
import { testDbKind } from "../helpers/databases.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { agentTestApp } from "./fixtures.ts";
import { ofType, runToEnd, sharedRuntimes, types, useScript } from "./support.ts";

/** Calls `tool` first; once a tool result is in, answers `answer`. */
const callThenAnswer = (tool: string, input: Record<string, unknown>, answer: string) => (view: ScriptView) =>
  view.prompt.at(-1)?.role === "tool" ? { text: answer } : { toolCalls: [{ toolName: tool, input }] };

/** A run's log after `afterSeq` up to its next terminal: what a joiner of `agentStream(runId, afterSeq)` receives. */
async function follow(agents: AgentService, runId: string, afterSeq: number): Promise<AgentLogEntry[]> {
  const log: AgentLogEntry[] = [];
  for await (const e of agents.events(runId, afterSeq, new AbortController().signal)) log.push(e);
  return log;
}

describe("SuspendedFinal: the run parked on async ask questions and will resume out of band when their answers (or expiries) arrive", () => {
  const { runtimes, first, another, disposeAll } = sharedRuntimes();
  afterEach(disposeAll);

  /** A run suspended on approve_spend: its log, and its pending interaction. */
  async function suspended(r: TestRuntime, answer = "The spend was approved.") {
    useScript(r.agents, "s", callThenAnswer("approve_spend", { amount: 5 }, answer));
    const { started, log } = await runToEnd(r.agents, {
      userMessage: "spend 5",
      toolNames: ["approve_spend"],
      llmProvider: "s",
    });
    expect(types(log)).toEqual(["tool_call_step", "run_usage", "suspended_final"]);
    const [interaction] = await r.interactions.list("PENDING", as("ADMIN"));
    return { started, suspendedAt: log.at(-1)!.seq, interactionId: interaction.id };
  }

  it("should resume out of band when its answer arrives: the run continues by itself and agentStream(runId, afterSeq) sees its stream go on", async () => {
    const a = await first();
    const { started, suspendedAt, interactionId } = await suspended(a);
    // A subscriber waits on the suspended run before anyone answers.
    const joined = follow(a.agents, started.runId, suspendedAt);
    await a.interactions.answer(interactionId, { ok: true }, as("USER"));
    const log = await joined;
    expect(types(log)).toEqual([
      "tool_call_step",
      "tool_result_step",
      "message_delta",
      "message_delta",
      "message_delta",
      "message_delta",
      "run_usage",
      "message_final",
    ]);
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => suspendedAt + 1 + i));
    expect(log.every((e) => e.runId === started.runId)).toBe(true);
    expect(ofType(log, "tool_result_step")[0]).toMatchObject({
      tool: "approve_spend",
      isError: false,
      result: { ok: true },
    });
    expect(await a.agents.store.get(started.runId)).toMatchObject({
      status: "SUCCEEDED",
      final: { type: "message_final", text: "The spend was approved." },
    });
  });

  it("should resume out of band when the expiry arrives: the model gets the TIMEOUT result without any explicit resume", async () => {
    const a = await first();
    useScript(a.agents, "s", callThenAnswer("brief_wait", {}, "It timed out."));
    const { started, log: first_ } = await runToEnd(a.agents, {
      userMessage: "wait",
      toolNames: ["brief_wait"],
      llmProvider: "s",
    });
    expect(types(first_).at(-1)).toBe("suspended_final");
    const log = await follow(a.agents, started.runId, first_.at(-1)!.seq);
    expect(ofType(log, "tool_result_step")).toEqual([
      expect.objectContaining({
        tool: "brief_wait",
        isError: true,
        result: expect.objectContaining({ kind: "TIMEOUT" }),
      }),
    ]);
    expect(types(log).at(-1)).toBe("message_final");
  });

  it("should let an explicit resume still work, and not resume twice: answers inside the resume start one new run, and the suspended run does not also continue", async () => {
    const a = await first();
    const { started, suspendedAt, interactionId } = await suspended(a);
    const resumed = await runToEnd(a.agents, {
      threadId: started.threadId,
      resume: { answers: { [interactionId]: { ok: false } } },
    });
    expect(resumed.started.runId).not.toBe(started.runId);
    expect(ofType(resumed.log, "tool_result_step")[0]).toMatchObject({ result: { ok: false } });
    expect(types(resumed.log).at(-1)).toBe("message_final");
    // A sweep after the fact finds nothing to continue.
    expect(await a.agents.continueAnswered()).toEqual([]);
    const original = await a.agents.store.events(started.runId, 0);
    expect(original.at(-1)).toMatchObject({ type: "suspended_final", seq: suspendedAt });
    expect((await a.agents.store.get(started.runId))?.status).toBe("RESUMED");
  });

  it("should let an explicit resume sent after the answer join the continuation instead of resuming again", async () => {
    const a = await first();
    const { started, suspendedAt, interactionId } = await suspended(a);
    await a.interactions.answer(interactionId, { ok: true }, as("USER"));
    await until(
      "the run continued by itself",
      async () => (await a.agents.store.get(started.runId))?.status !== "SUSPENDED",
    );
    const joined = await runToEnd(a.agents, { threadId: started.threadId, resume: {} });
    expect(joined.started).toMatchObject({ runId: started.runId, afterSeq: suspendedAt });
    expect(types(joined.log).at(-1)).toBe("message_final");
    expect(joined.log[0].seq).toBe(suspendedAt + 1);
    const all = await a.agents.store.events(started.runId, 0);
    expect(ofType(all, "tool_result_step")).toHaveLength(1);
    expect(await a.db.agentRun.count()).toBe(1);
    await expect(
      a.agents.start({
        options: { threadId: started.threadId, resume: { answers: { [interactionId]: { ok: true } } } },
        caller: as("USER"),
      }),
    ).rejects.toMatchObject({
      code: "CONFLICT",
    });
  });

  it("should resume out of band when the answer arrives through a callback URL (an external system)", async () => {
    const urls: string[] = [];
    const app = agentTestApp();
    app.tool(
      { name: "ask_vendor", description: "Asks an external system.", input: z.object({}), pauses: true },
      async (_input, ctx) => {
        const opened = await ctx.openInteraction({ question: "Quote?", callback: true });
        urls.push(opened.callbackUrl!);
        return park({ interactionIds: [opened.id] });
      },
    );
    const r = await testRuntime({ app });
    runtimes.push(r);
    const server = buildApp(r);
    await server.start(0, "127.0.0.1");
    try {
      useScript(r.agents, "s", callThenAnswer("ask_vendor", {}, "The vendor answered."));
      const { started, log: head } = await runToEnd(r.agents, {
        userMessage: "get a quote",
        toolNames: ["ask_vendor"],
        llmProvider: "s",
      });
      expect(types(head).at(-1)).toBe("suspended_final");
      const joined = follow(r.agents, started.runId, head.at(-1)!.seq);
      const res = await fetch(urls[0], {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ price: 12 }),
      });
      expect(res.status).toBe(200);
      const log = await joined;
      expect(ofType(log, "tool_result_step")[0]).toMatchObject({ tool: "ask_vendor", result: { price: 12 } });
      expect(ofType(log, "message_final")).toEqual([expect.objectContaining({ text: "The vendor answered." })]);
    } finally {
      await server.stop();
    }
  });

  it("should run the continuation as the original caller: an ADMIN's answer does not let a USER's run call an ADMIN tool", async () => {
    const a = await first();
    useScript(a.agents, "s", (view) => {
      const results = view.prompt.filter((m) => m.role === "tool").length;
      return results === 0
        ? { toolCalls: [{ toolName: "approve_spend", input: { amount: 1 } }] }
        : results === 1
          ? { toolCalls: [{ toolName: "admin_stats", input: {} }] }
          : { text: "done" };
    });
    const { started, log: head } = await runToEnd(
      a.agents,
      { userMessage: "go", toolNames: ["approve_spend", "admin_stats"], llmProvider: "s" },
      as("USER"),
    );
    const [interaction] = await a.interactions.list("PENDING", as("ADMIN"));
    await a.interactions.answer(interaction.id, { ok: true }, as("ADMIN"));
    const log = await follow(a.agents, started.runId, head.at(-1)!.seq);
    const denied = ofType(log, "tool_result_step").find((e) => e.tool === "admin_stats")!;
    expect(denied).toMatchObject({ isError: true, result: expect.objectContaining({ kind: "PERMISSION_DENIED" }) });
    expect(await a.db.run.findFirst({ where: { tool: "admin_stats" } })).toMatchObject({
      callerRole: "USER",
      callerKey: "test-user",
    });
  });

  it("should still resume a run suspended before a restart when it is answered after it, on the instance that received the answer", async () => {
    const a = await first();
    const { started, suspendedAt, interactionId } = await suspended(a);
    const b = await another(a);
    runtimes.splice(runtimes.indexOf(a), 1);
    await a.close();
    useScript(b.agents, "s", callThenAnswer("approve_spend", { amount: 5 }, "Approved after the restart."));
    const joined = follow(b.agents, started.runId, suspendedAt);
    await b.interactions.answer(interactionId, { ok: true }, as("USER"));
    const log = await joined;
    expect(ofType(log, "message_final")).toEqual([expect.objectContaining({ text: "Approved after the restart." })]);
    runtimes.unshift(a);
  });

  it("should fail the continuation with PERMISSION_DENIED when the key that started the run was revoked before the answer", async () => {
    const a = await first();
    await a.keys.create("spender", "USER");
    const caller = { role: "USER" as const, keyName: "spender", keyId: null };
    useScript(a.agents, "s", callThenAnswer("approve_spend", { amount: 5 }, "approved"));
    const { started, log: head } = await runToEnd(
      a.agents,
      { userMessage: "spend 5", toolNames: ["approve_spend"], llmProvider: "s" },
      caller,
    );
    const [interaction] = await a.interactions.list("PENDING", as("ADMIN"));
    await a.keys.revoke("spender");
    await a.interactions.answer(interaction.id, { ok: true }, as("ADMIN"));
    const log = await follow(a.agents, started.runId, head.at(-1)!.seq);
    expect(log).toEqual([
      expect.objectContaining({ type: "run_failed", kind: "PERMISSION_DENIED", seq: head.at(-1)!.seq + 1 }),
    ]);
    expect((await a.agents.store.get(started.runId))?.status).toBe("FAILED");
  });

  it("should still resume when the instance that took the answer stopped before continuing: another server's heartbeat sweep continues the run", async () => {
    const a = await first();
    const { started, suspendedAt, interactionId } = await suspended(a);
    const b = await another(a);
    useScript(b.agents, "s", callThenAnswer("approve_spend", { amount: 5 }, "Approved by the sweep."));
    // a drains its agent runs: it accepts the answer (the tool run resumes) but continues nothing.
    await a.agents.close(0);
    await a.interactions.answer(interactionId, { ok: true }, as("USER"));
    expect((await a.agents.store.get(started.runId))?.status).toBe("SUSPENDED");
    // What b's sweep does after each heartbeat.
    expect(await b.agents.continueAnswered()).toEqual([started.runId]);
    const log = await follow(b.agents, started.runId, suspendedAt);
    expect(ofType(log, "message_final")).toEqual([expect.objectContaining({ text: "Approved by the sweep." })]);
  });

  it("should resume exactly once when two instances race to continue the same answered run (a claim in the database)", async () => {
    const a = await first();
    const b = await another(a);
    const { started, suspendedAt, interactionId } = await suspended(a);
    const model = useScript(b.agents, "s", callThenAnswer("approve_spend", { amount: 5 }, "The spend was approved."));
    const calls = () => model.seen.length;
    await a.interactions.answer(interactionId, { ok: true }, as("USER"));
    // Both instances try while the first claim may be in flight. (Two runtimes in one
    // process cannot write one SQLite file at once: there, b tries once a's claim is in.)
    if (testDbKind() !== "postgres")
      await until("a claimed the run", async () => (await a.agents.store.get(started.runId))?.status !== "SUSPENDED");
    const tries = await Promise.all([a, b].map((r) => r.agents.continueSuspended(started.runId)));
    expect(tries.filter(Boolean).length).toBeLessThanOrEqual(1);
    const log = await follow(b.agents, started.runId, suspendedAt);
    expect(types(log).at(-1)).toBe("message_final");
    expect(await a.agents.continueAnswered()).toEqual([]);
    expect(await b.agents.continueAnswered()).toEqual([]);
    const all = await b.agents.store.events(started.runId, 0);
    expect(ofType(all, "tool_result_step")).toHaveLength(1);
    expect(ofType(all, "message_final")).toHaveLength(1);
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    expect(calls()).toBeLessThanOrEqual(1);
  });
});
