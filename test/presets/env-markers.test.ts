import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const SECRET = "s3cr3t-value-9f8e7d6c";

describe('"!ENV NAME" markers in presets', () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;
  const responses: string[] = [];

  beforeEach(async () => {
    process.env.EXT_TEST_TOKEN = SECRET;
    delete process.env.EXT_TEST_MISSING;
    const app = new App();
    app.tool(
      {
        name: "call_api",
        description: "Calls an API with a token; echoes what it was given.",
        input: z.object({ url: z.string(), token: z.string() }),
      },
      ({ url, token }, ctx) => {
        ctx.log.info("calling", { url, token });
        return { url, sent: `Bearer ${token}` };
      },
    );
    rt = await testRuntime({ app });
    gql = gqlClient(rt);
    admin = await rt.keys.create("admin", "ADMIN");
    const wrapped = gql;
    gql = (async (...args: Parameters<typeof wrapped>) => {
      const r = await wrapped(...args);
      responses.push(r.text);
      return r;
    }) as typeof gql;
  });
  afterEach(async () => {
    delete process.env.EXT_TEST_TOKEN;
    await rt.dispose();
  });

  it("should store and serve the marker, resolve it only at run time, and never reveal the value anywhere", async () => {
    const created = await gql(
      `mutation { createPreset(input: { name: "call_prod", description: "prod", baseTool: "call_api", fixedKwargs: { token: "!ENV EXT_TEST_TOKEN" } }) { fixedKwargs } }`,
      {},
      admin,
    );
    expect(created.data!.createPreset.fixedKwargs).toEqual({ token: "!ENV EXT_TEST_TOKEN" });
    const run = await gql(
      `mutation { dispatch(input: { tool: "call_prod", input: { url: "https://api.example" } }) { id status data content { text } } }`,
      {},
      admin,
    );
    expect(run.data!.dispatch.status).toBe("SUCCEEDED");
    // The body got the real value; every record of it is scrubbed.
    expect(run.data!.dispatch.data).toEqual({ url: "https://api.example", sent: "Bearer [redacted]" });
    await gql(
      `{ presets { fixedKwargs } tool(name: "call_prod") { fixedKwargs inputSchema } run(id: "${run.data!.dispatch.id}") { input data content { text } } }`,
      {},
      admin,
    );

    const stored = JSON.stringify([
      await rt.db.run.findMany(),
      await rt.db.runEvent.findMany(),
      await rt.db.preset.findMany(),
      await rt.db.attempt.findMany(),
    ]);
    expect(stored).not.toContain(SECRET);
    expect(stored).toContain("!ENV EXT_TEST_TOKEN");
    expect(responses.join("\n")).not.toContain(SECRET);
    expect(rt.logLines.join("\n")).not.toContain(SECRET);
    expect(rt.logLines.join("\n")).toContain("[redacted]");
  });

  it("should fail the run with a clear message naming a missing variable (never a value)", async () => {
    await gql(
      `mutation { createPreset(input: { name: "call_missing", description: "x", baseTool: "call_api", fixedKwargs: { token: "!ENV EXT_TEST_MISSING" } }) { name } }`,
      {},
      admin,
    );
    const run = await gql(
      `mutation { dispatch(input: { tool: "call_missing", input: { url: "u" } }) { status errorKind errorMessage } }`,
      {},
      admin,
    );
    expect(run.data!.dispatch).toEqual({
      status: "FAILED",
      errorKind: "INTERNAL",
      errorMessage: 'preset "call_missing": the environment variable EXT_TEST_MISSING is not set',
    });
  });

  it("should refuse a malformed marker at write time", async () => {
    const r = await gql(
      `mutation { createPreset(input: { name: "bad", description: "x", baseTool: "call_api", fixedKwargs: { token: "!ENV not-a-name" } }) { name } }`,
      {},
      admin,
    );
    expect(r.errors![0].extensions!.issues![0]).toMatchObject({ path: "/fixedKwargs/token" });
    expect(await rt.db.preset.count()).toBe(0);
  });
});
