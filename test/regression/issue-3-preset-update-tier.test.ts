import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

describe("updating a preset over a fenced base (issue 3)", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;
  let user: string;
  beforeEach(async () => {
    const app = new App();
    app.tool({ name: "echo", description: "Echo.", input: z.object({ text: z.string() }) }, ({ text }) => text);
    app.tool(
      { name: "vault", description: "Fenced.", input: z.object({ text: z.string() }), tier: "fenced" },
      () => "fenced stuff",
    );
    rt = await testRuntime({ app, config: { demo: false } });
    gql = gqlClient(rt);
    admin = await rt.keys.create("admin", "ADMIN");
    user = await rt.keys.create("user", "USER");
    expect(
      (
        await gql(
          `mutation { createPreset(input: { name: "vault_daily", description: "Daily.", baseTool: "vault", fixedKwargs: { text: "daily" } }) { version } }`,
          {},
          admin,
        )
      ).errors,
    ).toBeUndefined();
  });
  afterEach(() => rt.dispose());

  it("should refuse a USER who rewrites an ADMIN's preset over a fenced tool onto a read tool, FORBIDDEN, the stored preset unchanged", async () => {
    const before = (
      await gql(`{ preset(name: "vault_daily") { description baseTool fixedKwargs version tier } }`, {}, admin)
    ).data!.preset;
    const res = await gql(
      `mutation { updatePreset(name: "vault_daily", expectedVersion: 1, input: { name: "vault_daily", description: "Mine now.", baseTool: "echo", fixedKwargs: {} }) { version } }`,
      {},
      user,
    );
    expect(res.errors?.[0].extensions?.code).toBe("FORBIDDEN");
    expect(res.errors?.[0].message).toContain('fenced-tier tool "vault"');
    expect(
      (await gql(`{ preset(name: "vault_daily") { description baseTool fixedKwargs version tier } }`, {}, admin)).data!
        .preset,
    ).toEqual(before);
    expect(before).toMatchObject({ baseTool: "vault", version: 1, tier: "FENCED" });
  });

  it("should still let an ADMIN move the preset onto another base", async () => {
    const res = await gql(
      `mutation { updatePreset(name: "vault_daily", expectedVersion: 1, input: { name: "vault_daily", description: "Moved.", baseTool: "echo", fixedKwargs: {} }) { version baseTool tier } }`,
      {},
      admin,
    );
    expect(res.data?.updatePreset).toEqual({ version: 2, baseTool: "echo", tier: "READ" });
  });
});
