import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const SECRET = "issue-secret-5b4a3c2d1e";

describe('"!ENV" settings in a refused manifest write (issue 4)', () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;
  beforeEach(async () => {
    process.env.EXT_REGRESSION_TOKEN = SECRET;
    const app = new App();
    app.tool(
      { name: "lookup", description: "Look a word up.", input: z.object({ word: z.string() }) },
      ({ word }) => word,
    );
    // A factory that quotes its settings when it refuses them.
    app.extension({
      name: "picky",
      kind: "WRAPPER",
      description: "Refuses every token, quoting it.",
      configSchema: { type: "object", properties: { token: { type: "string" } } },
      create: (_tool, config) => {
        throw new Error(`token ${String(config.token)} is not accepted`);
      },
    });
    rt = await testRuntime({ app, config: { demo: false } });
    gql = gqlClient(rt);
    admin = await rt.keys.create("admin", "ADMIN");
  });
  afterEach(async () => {
    delete process.env.EXT_REGRESSION_TOKEN;
    await rt.dispose();
  });

  it("should never show the resolved value in the error's extensions.issues, only the refusal naming extension and tool", async () => {
    const put = await gql(
      `mutation($i: ManifestInput!) { putManifest(input: $i) { name } }`,
      {
        i: {
          name: "m",
          document: { extensions: { lookup: [{ name: "picky", config: { token: "!ENV EXT_REGRESSION_TOKEN" } }] } },
        },
      },
      admin,
    );
    expect(put.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    expect(put.errors?.[0].extensions?.issues?.[0]).toMatchObject({ path: "/document/extensions/lookup/0" });
    expect(put.errors?.[0].extensions?.issues?.[0].message).toContain(
      'extension "picky" on tool "lookup": the factory refused',
    );
    expect(put.text).not.toContain(SECRET);
    expect(await rt.db.manifest.count()).toBe(0);
  });
});
