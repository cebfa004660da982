import { afterEach, describe, expect, it } from "vitest";
import { InteractionStore } from "../../src/interactions/interaction-store.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { agentTestApp } from "../agent/fixtures.ts";
import { ofType, runToEnd, types, useScript } from "../agent/support.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

/**
 * A run whose one turn calls approve_spend twice, suspended on both questions: its thread and the two interaction ids.
 */
async function twoQuestions(r: TestRuntime) {
  useScript(r.agents, "s", (view) =>
    view.prompt.at(-1)?.role === "tool"
      ? { text: "done" }
      : {
          toolCalls: [
            { toolName: "approve_spend", input: { amount: 1 } },
            { toolName: "approve_spend", input: { amount: 2 } },
          ],
        },
  );
  const { started, log } = await runToEnd(r.agents, {
    userMessage: "spend",
    toolNames: ["approve_spend"],
    llmProvider: "s",
  });
  expect(types(log).at(-1)).toBe("suspended_final");
  const pending = await r.interactions.list("PENDING", as("ADMIN"));
  // In the order of the calls: the question of amount 1, then that of amount 2.
  const ids = ["Approve spending 1?", "Approve spending 2?"].map((q) => pending.find((i) => i.question === q)!.id);
  return { threadId: started.threadId, ids };
}

const statuses = async (r: TestRuntime, ids: string[]) =>
  Promise.all(ids.map(async (id) => (await r.interactions.get(id))!.status));

describe("issue 23: a resume carrying several answers stores all of them or none", () => {
  it("should store neither answer when the second is refused, and then accept both answered correctly", async () => {
    rt = await testRuntime({ app: agentTestApp() });
    const { threadId, ids } = await twoQuestions(rt);
    const refused = rt.agents.start({
      options: { threadId, resume: { answers: { [ids[0]]: { ok: true }, [ids[1]]: { ok: "yes" } } } },
      caller: as("USER"),
    });
    await expect(refused).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: `/resume/answers/${ids[1]}/ok`, message: expect.any(String) }],
    });
    expect(await statuses(rt, ids)).toEqual(["PENDING", "PENDING"]);

    const { log } = await runToEnd(rt.agents, {
      threadId,
      resume: { answers: { [ids[0]]: { ok: true }, [ids[1]]: { ok: false } } },
    });
    expect(types(log).at(-1)).toBe("message_final");
    expect(ofType(log, "tool_result_step").map((s) => s.result)).toEqual([{ ok: true }, { ok: false }]);
    expect(await statuses(rt, ids)).toEqual(["ANSWERED", "ANSWERED"]);
  });

  it("should store neither answer when the second was answered meanwhile, and leave the first answerable", async () => {
    rt = await testRuntime({ app: agentTestApp() });
    const { ids } = await twoQuestions(rt);
    await rt.interactions.answer(ids[1], { ok: true }, as("USER"));
    const before = await rt.interactions.get(ids[1]);
    await expect(
      rt.interactions.answerAll({ [ids[0]]: { ok: true }, [ids[1]]: { ok: false } }, as("USER")),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await statuses(rt, ids)).toEqual(["PENDING", "ANSWERED"]);
    expect(await rt.interactions.get(ids[1])).toEqual(before);
    await expect(rt.interactions.answer(ids[0], { ok: true }, as("USER"))).resolves.toMatchObject({
      status: "SUCCEEDED",
    });
  });

  it("should roll back every answer of the transaction when one loses the race after the checks passed", async () => {
    rt = await testRuntime({ app: agentTestApp() });
    const { ids } = await twoQuestions(rt);
    // The second is answered between the checks and the write: the store sees it no longer pending.
    await rt.db.interaction.update({
      where: { id: ids[1] },
      data: { status: "ANSWERED", answer: { ok: true }, answeredAt: new Date() },
    });
    expect(
      await new InteractionStore(rt.db, () => "", rt.bus).answerAll(ids.map((id) => ({ id, answer: { ok: false } }))),
    ).toBe(ids[1]);
    expect(await statuses(rt, ids)).toEqual(["PENDING", "ANSWERED"]);
    expect((await rt.interactions.get(ids[0]))!.answer).toBeNull();
  });
});
