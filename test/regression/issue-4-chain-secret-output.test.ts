import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const SECRET_OUTPUT = "secret-output-7c6b5a49";

describe("chain into a secret-tier tool (issue 4)", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;
  let reader: string;
  beforeEach(async () => {
    const app = new App();
    app.tool({ name: "lookup", description: "Look a word up.", input: z.object({ word: z.string() }) }, ({ word }) => ({
      text: word,
    }));
    app.tool({ name: "shout", description: "Upper-case text.", input: z.object({ text: z.string() }) }, ({ text }) => ({
      text: text.toUpperCase(),
    }));
    app.tool({ name: "keeper", description: "Secret.", input: z.object({ text: z.string() }), tier: "secret" }, () => ({
      text: SECRET_OUTPUT,
    }));
    app.tool(
      { name: "sealed", description: "Secret too.", input: z.object({ word: z.string() }), tier: "secret" },
      ({ word }) => ({ text: word }),
    );
    rt = await testRuntime({ app, config: { demo: false } });
    gql = gqlClient(rt);
    admin = await rt.keys.create("admin", "ADMIN");
    reader = await rt.keys.create("reader", "READER");
    const document = {
      extensionsModules: ["tai42/contrib"],
      extensions: {
        lookup: [{ name: "chain", config: { next: ["keeper", "shout"] } }],
        shout: [{ name: "chain", config: { next: ["keeper"] } }],
        sealed: [{ name: "chain", config: { next: ["keeper"] } }],
      },
    };
    expect(
      (
        await gql(
          `mutation($i: ManifestInput!) { putManifest(input: $i) { name } }`,
          { i: { name: "m", document } },
          admin,
        )
      ).errors,
    ).toBeUndefined();
    expect((await gql(`mutation { activateManifest(name: "m") { name } }`, {}, admin)).errors).toBeUndefined();
  });
  afterEach(() => rt.dispose());

  const dispatch = async (tool: string, input: Record<string, unknown>) =>
    (
      await gql(
        `mutation($t: String!, $i: JSONObject!) { dispatch(input: { tool: $t, input: $i }) { id status data content { text } errorKind errorMessage } }`,
        { t: tool, i: input },
        admin,
      )
    ).data!.dispatch;

  it("should fail, naming the step, a read-tier chain whose last step is secret, and never store or serve the secret output", async () => {
    const run = await dispatch("shout_chain", { text: "x" });
    expect(run).toMatchObject({ status: "FAILED", errorKind: "PERMISSION_DENIED" });
    expect(run.errorMessage).toContain('chain step "keeper" is a secret-tier tool');
    const read = await gql(`query($id: ID!) { run(id: $id) { data content { text } } }`, { id: run.id }, reader);
    const events = await rt.runs.events({}, 0);
    expect(JSON.stringify([run, read.text, events, await rt.db.run.findMany()])).not.toContain(SECRET_OUTPUT);
  });

  it("should not pass a secret step's output on as the next step's (stored) input", async () => {
    const run = await dispatch("lookup_chain", { word: "x" });
    expect(run).toMatchObject({ status: "FAILED", errorKind: "PERMISSION_DENIED" });
    expect(run.errorMessage).toContain("the next step's input");
    expect(await rt.db.run.count({ where: { tool: "shout" } })).toBe(0);
    expect(JSON.stringify([await rt.db.run.findMany(), await rt.runs.events({}, 0)])).not.toContain(SECRET_OUTPUT);
  });

  it("should let a secret-tier chain end on a secret step, its result stored and served again redacted (only its caller's answer holds it)", async () => {
    const run = await dispatch("sealed_chain", { word: "x" });
    expect(run.status).toBe("SUCCEEDED");
    expect(JSON.stringify(run.data)).toContain(SECRET_OUTPUT);
    const read = await gql(`query($id: ID!) { run(id: $id) { data content { text } } }`, { id: run.id }, admin);
    expect(read.data!.run.data).toBe("[redacted]");
    expect(JSON.stringify([read.text, await rt.db.run.findMany(), await rt.runs.events({}, 0)])).not.toContain(
      SECRET_OUTPUT,
    );
  });
});
