import { afterEach, describe, expect, it } from "vitest";
import type { ScriptView } from "../../src/agent/providers/scripted-model.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { agentTestApp } from "./fixtures.ts";
import { ofType, runToEnd, sharedRuntimes, types, useScript } from "./support.ts";

const putThenAnswer = (view: ScriptView) =>
  view.prompt.at(-1)?.role === "tool"
    ? { text: "Stored." }
    : { toolCalls: [{ toolName: "kv_put", input: { key: "k", value: "v" } }] };

describe("agent runs across server instances", () => {
  const { runtimes, first, another, disposeAll } = sharedRuntimes();
  afterEach(disposeAll);

  async function interrupt(r: TestRuntime) {
    useScript(r.agents, "s", putThenAnswer);
    const { started, log } = await runToEnd(r.agents, {
      userMessage: "store",
      toolNames: ["kv_put"],
      interruptOn: { kv_put: true },
      llmProvider: "s",
    });
    expect(types(log)).toEqual(["run_usage", "interrupt_final"]);
    return started;
  }

  it("should resume an interrupt on another instance from the stored checkpoint and thread", async () => {
    const a = await first();
    const started = await interrupt(a);
    const b = await another(a);
    useScript(b.agents, "s", putThenAnswer);
    const { log } = await runToEnd(b.agents, {
      threadId: started.threadId,
      resume: { decisions: [{ type: "approve" }] },
    });
    expect(types(log)).toEqual(["tool_call_step", "tool_result_step", "message_delta", "run_usage", "message_final"]);
    expect((await a.db.kvEntry.findUnique({ where: { key: "k" } }))?.value).toBe("v");
    expect((await a.agents.store.get(started.runId))?.status).toBe("RESUMED");
    const replayed: string[] = [];
    for await (const e of a.agents.events(log[0].runId, 0, new AbortController().signal)) replayed.push(e.type);
    expect(replayed).toEqual(types(log));
  });

  it("should let exactly one of two concurrent resumes win", async () => {
    const a = await first();
    const started = await interrupt(a);
    const results = await Promise.allSettled(
      [0, 1].map(() =>
        a.agents.start({ options: { threadId: started.threadId, resume: { type: "approve" } }, caller: as("USER") }),
      ),
    );
    expect(results.filter((x) => x.status === "fulfilled")).toHaveLength(1);
    expect(results.find((x) => x.status === "rejected")).toMatchObject({ reason: { code: "CONFLICT" } });
  });

  it("should give the model a 'not run' result for calls of a pause that a new run abandons", async () => {
    const a = await first();
    const started = await interrupt(a);
    const model = useScript(a.agents, "s2", [{ text: "Fine, I will not store it." }]);
    const { log } = await runToEnd(a.agents, {
      threadId: started.threadId,
      userMessage: "never mind",
      llmProvider: "s2",
    });
    expect(types(log).at(-1)).toBe("message_final");
    const shown = model.seen[0].prompt.find((m) => m.role === "tool");
    expect(JSON.stringify(shown)).toContain("not run: the run paused at this call and was not resumed");
    await expect(
      a.agents.start({ options: { threadId: started.threadId, resume: { type: "approve" } }, caller: as("USER") }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await a.db.kvEntry.count()).toBe(0);
  });

  it("should fail a run left RUNNING by an instance that is gone when a server starts", async () => {
    const a = await first();
    await a.db.agentRun.create({
      data: {
        id: "orphan",
        agent: "tools_agent",
        threadId: "t",
        status: "RUNNING",
        input: {},
        callerRole: "USER",
        checkpoint: { instanceId: "gone-host/1/x" },
      },
    });
    await a.db.agentEvent.create({
      data: {
        runId: "orphan",
        type: "message_delta",
        payload: { type: "message_delta", final: false, text: "hal", seq: 1, runId: "orphan" },
      },
    });
    const b = await another(a);
    const log = await b.agents.store.events("orphan", 0);
    expect(log.map((e) => [e.seq, e.type])).toEqual([
      [1, "message_delta"],
      [2, "run_failed"],
    ]);
    expect(log[1]).toMatchObject({ kind: "INTERNAL", message: "interrupted by restart" });
    expect((await b.agents.store.get("orphan"))?.status).toBe("FAILED");
  });

  it("should fail a run whose instance stops beating while the server runs, ending a joiner's stream", async () => {
    const a = await testRuntime({ app: agentTestApp(), heartbeatSeconds: 0.2 });
    runtimes.push(a);
    await a.db.agentRun.create({
      data: {
        id: "stranded",
        agent: "tools_agent",
        threadId: "t2",
        status: "RUNNING",
        input: {},
        callerRole: "USER",
        checkpoint: { instanceId: "gone-host/2/y" },
      },
    });
    const seen: string[] = [];
    for await (const e of a.agents.events("stranded", 0, new AbortController().signal)) seen.push(`${e.seq}:${e.type}`);
    expect(seen).toEqual(["1:run_failed"]);
  });

  it("should cancel a run still going when the server shuts down past its grace period, and store that", async () => {
    const a = await first();
    useScript(a.agents, "slow", [{ text: Array.from({ length: 200 }, (_, i) => `w${i}`).join(" ") }], 25);
    const started = await a.agents.start({ options: { userMessage: "talk", llmProvider: "slow" }, caller: as("USER") });
    const b = await another(a);
    runtimes.splice(runtimes.indexOf(a), 1);
    await a.close();
    const run = await b.agents.store.get(started.runId);
    expect(run?.status).toBe("CANCELLED");
    const log = await b.agents.store.events(started.runId, 0);
    expect(log.at(-1)).toMatchObject({ type: "run_failed", kind: "CANCELLED" });
    // The turn was cut short: what the model had said streamed live and stays; the run has no answer.
    expect(ofType(log, "message_delta").length).toBeGreaterThan(0);
    expect(ofType(log, "message_delta").every((d) => d.turn === 1)).toBe(true);
    expect(ofType(log, "message_final")).toEqual([]);
    runtimes.unshift(a);
  });
});
