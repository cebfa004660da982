import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { park } from "../../src/interactions/park.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const ANSWER = "answer-secret-0f1e2d3c";

describe("the answer to a secret-tier run's interaction (issue 4)", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;
  let reader: string;
  beforeEach(async () => {
    const app = new App();
    app.tool(
      {
        name: "ask_vault",
        description: "Asks for a secret and returns it.",
        input: z.object({}),
        tier: "secret",
        pauses: true,
      },
      () =>
        park({
          interactions: [
            { question: "The vault code?", answerFormat: { type: "object", properties: { code: { type: "string" } } } },
          ],
        }),
    );
    rt = await testRuntime({ app, config: { demo: false } });
    gql = gqlClient(rt);
    admin = await rt.keys.create("admin", "ADMIN");
    reader = await rt.keys.create("reader", "READER");
  });
  afterEach(() => rt.dispose());

  it("should serve the answer as [redacted] on interactions and on the run, as the run's output is", async () => {
    const parked = (
      await gql(
        `mutation { dispatch(input: { tool: "ask_vault", input: {} }) { id status interactions { id } } }`,
        {},
        admin,
      )
    ).data!.dispatch;
    expect(parked.status).toBe("PARKED");
    const done = await gql(
      `mutation($id: ID!, $a: JSON!) { answerInteraction(id: $id, answer: $a) { status data } }`,
      { id: parked.interactions[0].id, a: { code: ANSWER } },
      admin,
    );
    expect(done.data!.answerInteraction).toEqual({ status: "SUCCEEDED", data: "[redacted]" });
    // Even the ADMIN, who sees the run, is served the answer redacted (a READER sees neither: docs/security-model.md
    // §2).
    expect((await gql(`{ interactions { id } }`, {}, reader)).data!.interactions).toEqual([]);
    const listed = await gql(`{ interactions { id status answer } }`, {}, admin);
    expect(listed.data!.interactions).toEqual([
      { id: parked.interactions[0].id, status: "ANSWERED", answer: "[redacted]" },
    ]);
    const run = await gql(`query($id: ID!) { run(id: $id) { interactions { answer } } }`, { id: parked.id }, admin);
    expect(run.data!.run.interactions).toEqual([{ answer: "[redacted]" }]);
    expect(listed.text + run.text + done.text).not.toContain(ANSWER);
  });
});
