import { afterEach, describe, expect, it } from "vitest";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { agentTestApp } from "../agent/fixtures.ts";
import { runToEnd, types, useScript } from "../agent/support.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

describe("issue 5: one run at a time on a thread", () => {
  it("should accept exactly one of several starts racing on the same thread and refuse the others with CONFLICT", async () => {
    rt = await testRuntime({ app: agentTestApp() });
    useScript(rt.agents, "s", () => ({ text: "a slow answer in several words" }), 20);
    const starts = await Promise.allSettled(
      [0, 1, 2, 3].map(() =>
        rt!.agents.start({ options: { userMessage: "hi", threadId: "race", llmProvider: "s" }, caller: as("USER") }),
      ),
    );
    const won = starts.filter((s) => s.status === "fulfilled");
    const lost = starts.filter((s): s is PromiseRejectedResult => s.status === "rejected");
    expect(won.length).toBeLessThanOrEqual(1);
    for (const l of lost)
      expect(l.reason).toMatchObject({
        code: "CONFLICT",
        message: expect.stringContaining('thread "race" has a run in progress'),
      });
    const rows = await rt.db.agentRun.findMany({ where: { threadId: "race" } });
    expect(rows).toHaveLength(won.length);
  });

  it("should refuse a resume racing a new run that abandons the same pause, so the stale checkpoint never runs", async () => {
    rt = await testRuntime({ app: agentTestApp() });
    useScript(
      rt.agents,
      "s",
      (view) =>
        view.prompt.at(-1)?.role === "tool"
          ? { text: "Stored." }
          : { toolCalls: [{ toolName: "kv_put", input: { key: "k", value: "v" } }] },
      5,
    );
    const paused = await runToEnd(rt.agents, {
      userMessage: "store it",
      toolNames: ["kv_put"],
      interruptOn: { kv_put: true },
      llmProvider: "s",
    });
    expect(types(paused.log)).toEqual(["run_usage", "interrupt_final"]);
    const threadId = paused.started.threadId;
    const [resume, fresh] = await Promise.allSettled([
      rt.agents.start({ options: { threadId, resume: { type: "approve" } }, caller: as("USER") }),
      rt.agents.start({
        options: { threadId, userMessage: "never mind", toolNames: ["kv_put"], llmProvider: "s" },
        caller: as("USER"),
      }),
    ]);
    expect([resume.status, fresh.status].filter((s) => s === "fulfilled").length).toBeLessThanOrEqual(1);
    if (resume.status === "rejected") expect(resume.reason).toMatchObject({ code: "CONFLICT" });
    if (fresh.status === "rejected") expect(fresh.reason).toMatchObject({ code: "CONFLICT" });
    const running = await rt.db.agentRun.findMany({ where: { threadId, id: { not: paused.started.runId } } });
    expect(running.length).toBe([resume, fresh].filter((s) => s.status === "fulfilled").length);
    if (resume.status === "rejected")
      expect((await rt.agents.store.get(paused.started.runId))!.status).toBe("INTERRUPTED");
  });
});
