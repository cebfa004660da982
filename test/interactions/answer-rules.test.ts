import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { callerOf, type Caller } from "../../src/auth/roles.ts";
import { park } from "../../src/interactions/park.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";

/** Who may answer an interaction, and what an answer must be (docs/security-model.md §2). */
describe("answering interactions", () => {
  let rt: TestRuntime;
  const otherUser = callerOf("USER", "other-user", "key-other");

  beforeEach(async () => {
    const app = new App();
    app.tool({ name: "ask_user", description: "Asks a user.", input: z.object({}), pauses: true }, () =>
      park({
        interactions: [
          {
            question: "Approve?",
            answerFormat: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
          },
        ],
      }),
    );
    app.tool({ name: "ask_caller_q", description: "Asks its caller.", input: z.object({}), pauses: true }, () =>
      park({ interactions: [{ question: "Which one?", to: "caller" }] }),
    );
    app.tool({ name: "ask_briefly", description: "Asks with a deadline.", input: z.object({}), pauses: true }, () =>
      park({ interactions: [{ question: "Quick?", expiresInSeconds: 0.05 }] }),
    );
    rt = await testRuntime({ app });
  });
  afterEach(() => rt.dispose());

  /** Parks a run of `tool` as `caller`; returns the run and its one interaction. */
  async function parked(tool: string, caller: Caller = as("USER")) {
    const run = await rt.dispatcher.run({ tool, input: {}, caller, door: "runtime" });
    expect(run.status).toBe("PARKED");
    const [interaction] = await rt.interactions.forRun(run.id);
    return { run, interaction };
  }

  it("should let the run's caller answer and resume the run with the answer", async () => {
    const { interaction } = await parked("ask_user");
    const run = await rt.interactions.answer(interaction.id, { ok: true }, as("USER"));
    expect(run).toMatchObject({ status: "SUCCEEDED", data: { ok: true } });
  });

  it("should answer NOT_FOUND to a caller who may not see the run, as for an unknown id", async () => {
    const { interaction } = await parked("ask_user");
    await expect(rt.interactions.answer(interaction.id, { ok: true }, otherUser)).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: `no interaction with id "${interaction.id}"`,
    });
    await expect(rt.interactions.answer("no-such-id", { ok: true }, as("ADMIN"))).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    expect((await rt.interactions.get(interaction.id))!.status).toBe("PENDING");
  });

  it("should let an ADMIN answer any caller's interaction", async () => {
    const { interaction } = await parked("ask_user", otherUser);
    expect((await rt.interactions.answer(interaction.id, { ok: false }, as("ADMIN"))).status).toBe("SUCCEEDED");
  });

  it("should let a READER answer only the questions its own runs ask it as their caller", async () => {
    const reader = as("READER");
    const toUser = await parked("ask_user", reader);
    await expect(rt.interactions.answer(toUser.interaction.id, { ok: true }, reader)).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    const toCaller = await parked("ask_caller_q", reader);
    expect((await rt.interactions.answer(toCaller.interaction.id, "the blue one", reader)).status).toBe("SUCCEEDED");
  });

  it("should refuse an answer outside the answer format at /answer paths, keeping the interaction open", async () => {
    const { interaction } = await parked("ask_user");
    const refused = rt.interactions.answer(interaction.id, { ok: "yes" }, as("USER"));
    await expect(refused).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [expect.objectContaining({ path: expect.stringMatching(/^\/answer/) })],
    });
    expect((await rt.interactions.get(interaction.id))!.status).toBe("PENDING");
  });

  it("should refuse a second answer with CONFLICT", async () => {
    const { interaction } = await parked("ask_caller_q");
    await rt.interactions.answer(interaction.id, "first", as("USER"));
    await expect(rt.interactions.answer(interaction.id, "second", as("USER"))).rejects.toMatchObject({
      code: "CONFLICT",
    });
    expect((await rt.interactions.get(interaction.id))!.answer).toBe("first");
  });

  it("should refuse an answer past the deadline with CONFLICT and fail the run with TIMEOUT", async () => {
    const { run, interaction } = await parked("ask_briefly");
    const deadline = Date.parse(interaction.expiresAt!);
    while (Date.now() <= deadline) await new Promise((r) => setImmediate(r));
    // The answer finds it past its deadline, or already expired by the runtime's own sweep.
    await expect(rt.interactions.answer(interaction.id, "late", as("USER"))).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/expired/),
    });
    await until("the run to fail", async () => (await rt.runs.get(run.id))?.status === "FAILED");
    expect(await rt.runs.get(run.id)).toMatchObject({ status: "FAILED", errorKind: "TIMEOUT" });
    expect((await rt.interactions.get(interaction.id))!.status).toBe("EXPIRED");
  });

  it("should answer NOT_FOUND for an unknown callback token", async () => {
    await expect(rt.interactions.answerByToken("x".repeat(43), {})).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: "unknown callback",
    });
  });

  it("should list to a caller only the interactions of runs it may see, and all of them to an ADMIN", async () => {
    const mine = await parked("ask_user");
    const theirs = await parked("ask_user", otherUser);
    expect((await rt.interactions.list(undefined, as("USER"))).map((i) => i.id)).toEqual([mine.interaction.id]);
    expect((await rt.interactions.list(undefined, otherUser)).map((i) => i.id)).toEqual([theirs.interaction.id]);
    expect((await rt.interactions.list("PENDING", as("ADMIN"))).map((i) => i.id).sort()).toEqual(
      [mine.interaction.id, theirs.interaction.id].sort(),
    );
    expect(await rt.interactions.list("ANSWERED", as("ADMIN"))).toEqual([]);
  });
});
