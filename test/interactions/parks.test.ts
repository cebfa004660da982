import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { park } from "../../src/interactions/park.ts";
import { gqlClient } from "../helpers/gql.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";

describe("parks and interactions", () => {
  let rt: TestRuntime;
  let app: App;
  let gql: ReturnType<typeof gqlClient>;
  let user: string;

  beforeEach(async () => {
    app = new App();
    app.tool(
      {
        name: "approve",
        description: "Ask a human to approve an amount.",
        input: z.object({ amount: z.number() }),
        pauses: true,
      },
      ({ amount }) =>
        park({
          interactions: [
            {
              question: `Approve ${amount}?`,
              answerFormat: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
            },
          ],
          state: { amount },
        }),
    );
    app.tool(
      {
        name: "approve_then_sum",
        description: "Ask twice, then add the answers.",
        input: z.object({}),
        pauses: true,
        resume: (state, answers) => ({
          state,
          total: Object.values(answers as Record<string, number>).reduce((a, b) => a + b, 0),
        }),
      },
      () =>
        park({
          interactions: [
            { question: "a?", answerFormat: { type: "number" } },
            { question: "b?", answerFormat: { type: "number" } },
          ],
          state: "two",
        }),
    );
    app.tool({ name: "sneaky", description: "Not in the pausing set.", input: z.object({}) }, () =>
      park({ interactions: [{ question: "?" }] }),
    );
    app.tool({ name: "brief", description: "Expires fast.", input: z.object({}), pauses: true }, () =>
      park({ interactions: [{ question: "quick?", expiresInSeconds: 0.2 }] }),
    );
    rt = await testRuntime({ app });
    gql = gqlClient(rt);
    user = await rt.keys.create("user", "USER");
  });
  afterEach(() => rt.dispose());

  const dispatch = async (tool: string, input: Record<string, unknown>) =>
    (
      await gql(
        `mutation($t: String!, $i: JSONObject!) { dispatch(input: { tool: $t, input: $i }) { id status errorKind errorMessage data interactions { id question status to answerFormat } } }`,
        { t: tool, i: input },
        user,
      )
    ).data!.dispatch;
  const answer = (id: string, a: unknown) =>
    gql(
      `mutation($id: ID!, $a: JSON!) { answerInteraction(id: $id, answer: $a) { id status data errorKind } }`,
      { id, a },
      user,
    );

  it("should park a pausing tool's run with its interaction persisted, then resume it with the answer", async () => {
    const run = await dispatch("approve", { amount: 5 });
    expect(run.status).toBe("PARKED");
    expect(run.interactions).toEqual([
      {
        id: expect.any(String),
        question: "Approve 5?",
        status: "PENDING",
        to: "user",
        answerFormat: expect.any(Object),
      },
    ]);
    expect((await rt.runs.events({ runId: run.id }, 0)).map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_PARKED"]);
    const r = await answer(run.interactions[0].id, { ok: true });
    expect(r.data!.answerInteraction).toEqual({ id: run.id, status: "SUCCEEDED", data: { ok: true }, errorKind: null });
    expect((await rt.runs.events({ runId: run.id }, 0)).map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "RUN_PARKED",
      "RUN_FINISHED",
    ]);
  });

  it("should refuse a second answer and leave the first in place", async () => {
    const run = await dispatch("approve", { amount: 1 });
    await answer(run.interactions[0].id, { ok: true });
    const second = await answer(run.interactions[0].id, { ok: false });
    expect(second.errors![0].extensions!.code).toBe("CONFLICT");
    expect((await rt.interactions.forRun(run.id))[0]).toMatchObject({ status: "ANSWERED", answer: { ok: true } });
  });

  it("should refuse an answer that does not match answerFormat, listing the issues, and keep the run parked", async () => {
    const run = await dispatch("approve", { amount: 1 });
    const bad = await answer(run.interactions[0].id, { ok: "yes" });
    expect(bad.errors![0].extensions).toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: "/answer/ok", message: "must be boolean" }],
    });
    expect((await rt.runs.get(run.id))!.status).toBe("PARKED");
    expect((await rt.interactions.forRun(run.id))[0].status).toBe("PENDING");
  });

  it("should resume only once every interaction of the park is answered, through the tool's resume", async () => {
    const run = await dispatch("approve_then_sum", {});
    const [a, b] = run.interactions;
    expect((await answer(a.id, 2)).data!.answerInteraction.status).toBe("PARKED");
    const done = await answer(b.id, 3);
    expect(done.data!.answerInteraction).toMatchObject({ status: "SUCCEEDED", data: { state: "two", total: 5 } });
  });

  it("should refuse a park from a tool outside the pausing set as a failed run", async () => {
    const run = await dispatch("sneaky", {});
    expect(run).toMatchObject({ status: "FAILED", errorKind: "INTERNAL" });
    expect(run.errorMessage).toContain("only tools in the pausing set");
  });

  it("should fail the run with TIMEOUT when an interaction expires", async () => {
    const parked = await rt.dispatcher.run({ tool: "brief", input: {}, caller: as("USER"), door: "runtime" });
    expect(parked.status).toBe("PARKED");
    await until("the interaction to expire", async () => {
      await rt.interactions.expireDue();
      return (await rt.runs.get(parked.id))?.status === "FAILED";
    });
    expect(await rt.runs.get(parked.id)).toMatchObject({ status: "FAILED", errorKind: "TIMEOUT" });
    expect((await rt.interactions.forRun(parked.id))[0].status).toBe("EXPIRED");
  });

  it("should let another instance sharing the database answer and resume the run", async () => {
    const run = await rt.dispatcher.run({ tool: "approve", input: { amount: 9 }, caller: as("USER"), door: "runtime" });
    const other = await testRuntime({ app, databaseUrl: rt.config.databaseUrl });
    try {
      const [i] = await other.interactions.forRun(run.id);
      const resumed = await other.interactions.answer(i.id, { ok: false }, as("USER"));
      expect(resumed).toMatchObject({ status: "SUCCEEDED", data: { ok: false } });
      expect(await rt.runs.get(run.id)).toMatchObject({ status: "SUCCEEDED" });
    } finally {
      await other.close();
    }
  });

  it("should cancel a parked run and close its interactions", async () => {
    const run = await rt.dispatcher.run({ tool: "approve", input: { amount: 2 }, caller: as("USER"), door: "runtime" });
    const cancelled = await rt.dispatcher.cancel(run.id);
    expect(cancelled).toMatchObject({ status: "CANCELLED", errorKind: "CANCELLED" });
    expect((await rt.interactions.forRun(run.id))[0].status).toBe("CANCELLED");
  });
});
