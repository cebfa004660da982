import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { park } from "../../src/interactions/park.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * Review (issue 31, keys): a parked run answered later is stored work going on (docs/security-model.md §1.4): it acts
 * as its key is now, so a key revoked or expired meanwhile does not run the resume, and the key's scope holds for
 * what the resumed body runs.
 */

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

const DISPATCH = `mutation($t: String!, $i: JSONObject!) { dispatch(input: { tool: $t, input: $i }) { id status interactions { id } } }`;
const ANSWER = `mutation($id: ID!, $a: JSON!) { answerInteraction(id: $id, answer: $a) { id status errorKind errorMessage } }`;

async function setup() {
  const resumed: string[] = [];
  const app = new App();
  app.tool(
    {
      name: "approve_then_echo",
      description: "Asks, then runs echo as its caller.",
      input: z.object({}),
      pauses: true,
      resume: async (_state, _answers, ctx) => {
        resumed.push(ctx.caller.keyName ?? "");
        const child = await ctx.runTool("echo", { text: "after" });
        return { child: child.status, kind: child.errorKind };
      },
    },
    () => park({ interactions: [{ question: "go?", answerFormat: { type: "boolean" } }] }),
  );
  rt = await testRuntime({ app });
  const gql = gqlClient(rt);
  const admin = await rt.keys.create("root", "ADMIN");
  return { rt, gql, admin, resumed };
}

describe("a parked run resumed after its answer", () => {
  it("should not run the resume of a key revoked while it was parked", async () => {
    const { rt, gql, admin, resumed } = await setup();
    const key = await rt.keys.create("user", "USER");
    const run = (await gql(DISPATCH, { t: "approve_then_echo", i: {} }, key)).data!.dispatch;
    expect(run.status).toBe("PARKED");
    await rt.keys.revoke("user");
    const r = await gql(ANSWER, { id: run.interactions[0].id, a: true }, admin);
    expect(r.data?.answerInteraction).toMatchObject({ status: "FAILED", errorKind: "PERMISSION_DENIED" });
    expect(resumed).toEqual([]);
  });

  it("should keep the key's scope for what the resumed body runs", async () => {
    const { rt, gql, resumed } = await setup();
    const key = await rt.keys.create("narrow", "USER", undefined, undefined, {
      scope: { tools: ["approve_then_echo"] },
    });
    const run = (await gql(DISPATCH, { t: "approve_then_echo", i: {} }, key)).data!.dispatch;
    expect(run.status).toBe("PARKED");
    const r = await gql(ANSWER, { id: run.interactions[0].id, a: true }, key);
    expect(r.data?.answerInteraction).toMatchObject({ status: "SUCCEEDED" });
    expect(resumed).toEqual(["narrow"]);
    const child = await rt.db.run.findFirst({ where: { tool: "echo", parentRunId: run.id } });
    expect(child).toMatchObject({ status: "FAILED", errorKind: "PERMISSION_DENIED" });
  });
});
