import { afterEach, describe, expect, it } from "vitest";
import { callerOf } from "../../src/auth/roles.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { agentTestApp } from "../agent/fixtures.ts";
import { runToEnd, types, useScript } from "../agent/support.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

const alice = callerOf("USER", "alice", "key-alice");
const bob = callerOf("USER", "bob", "key-bob");

describe("issue 5: a thread recorded with appendThreadMessages belongs to its writer", () => {
  it("should refuse another caller reading, appending to or running on a thread that has messages but no run yet", async () => {
    rt = await testRuntime({ app: agentTestApp() });
    useScript(rt.agents, "s", () => ({ text: "ok" }));
    await rt.agents.appendThreadMessages(null, "plans", [{ role: "user", content: "my private plans" }], alice);
    expect(await rt.agents.thread("plans", bob)).toBeNull();
    await expect(
      rt.agents.appendThreadMessages(null, "plans", [{ role: "user", content: "bob was here" }], bob),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(
      rt.agents.start({ options: { threadId: "plans", llmProvider: "s" }, caller: bob }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    const view = await rt.agents.thread("plans", alice);
    expect(view!.messages.map((m) => m.content)).toEqual(["my private plans"]);
    expect(await rt.db.agentRun.count({ where: { threadId: "plans" } })).toBe(0);
  });

  it("should let the writer run on the thread and an ADMIN read it", async () => {
    rt = await testRuntime({ app: agentTestApp() });
    useScript(rt.agents, "s", () => ({ text: "answered" }));
    await rt.agents.appendThreadMessages(null, "mine", [{ role: "user", content: "question" }], alice);
    const { log } = await runToEnd(rt.agents, { threadId: "mine", llmProvider: "s" }, alice);
    expect(types(log)).toEqual(["message_delta", "run_usage", "message_final"]);
    const view = await rt.agents.thread("mine", as("ADMIN"));
    expect(view!.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "question"],
      ["assistant", "answered"],
    ]);
  });

  it("should keep a thread that a run created for the caller who started that run", async () => {
    rt = await testRuntime({ app: agentTestApp() });
    useScript(rt.agents, "s", () => ({ text: "hi" }));
    const { started } = await runToEnd(rt.agents, { userMessage: "hello", llmProvider: "s" }, alice);
    await expect(
      rt.agents.appendThreadMessages(null, started.threadId, [{ role: "user", content: "x" }], bob),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(
      rt.agents.appendThreadMessages(null, started.threadId, [{ role: "user", content: "more" }], alice),
    ).resolves.toMatchObject({ id: started.threadId });
  });
});
