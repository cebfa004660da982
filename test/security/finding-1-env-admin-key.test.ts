import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const ADMIN_KEY = "finding1-admin-key-0123456789abcdef";
const ZONE_SECRET = "finding1-zone-secret-7c6b5a";

const stored = async (rt: TestRuntime) =>
  JSON.stringify([
    await rt.db.run.findMany(),
    await rt.db.attempt.findMany(),
    await rt.db.runEvent.findMany(),
    await rt.db.preset.findMany(),
  ]);

describe("finding 1: no caller reads the admin key through a preset's !ENV marker", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  beforeEach(async () => {
    process.env.TAI_ADMIN_KEY = ADMIN_KEY;
    process.env.EXT_FINDING1_ZONE = ZONE_SECRET;
    rt = await testRuntime({ env: { TAI_ADMIN_KEY: ADMIN_KEY } });
    gql = gqlClient(rt);
  });
  afterEach(async () => {
    delete process.env.TAI_ADMIN_KEY;
    delete process.env.EXT_FINDING1_ZONE;
    await rt.dispose();
  });

  it("should refuse an anonymous preset over clock whose timeZone is !ENV TAI_ADMIN_KEY, storing nothing", async () => {
    const r = await gql(
      `mutation { createPreset(input: { name: "steal", description: "x", baseTool: "clock", fixedKwargs: { timeZone: "!ENV TAI_ADMIN_KEY" } }) { name } }`,
    );
    expect(r.errors?.[0].extensions?.code).toBe("INVALID_INPUT");
    expect(r.errors?.[0].message).toContain("TAI_ADMIN_KEY");
    expect(await rt.db.preset.count()).toBe(0);
  });

  it("should refuse an anonymous preset with a marker naming any variable as FORBIDDEN, naming the path", async () => {
    const r = await gql(
      `mutation { createPreset(input: { name: "zone", description: "x", baseTool: "clock", fixedKwargs: { timeZone: "!ENV EXT_FINDING1_ZONE" } }) { name } }`,
    );
    expect(r.errors?.[0].extensions?.code).toBe("FORBIDDEN");
    expect(r.errors?.[0].message).toContain("/fixedKwargs/timeZone");
    expect(await rt.db.preset.count()).toBe(0);
  });

  it("should fail the run of a marker naming TAI_ADMIN_KEY stored before the rule, naming the variable and never storing its value", async () => {
    await rt.db.preset.create({
      data: {
        name: "old_steal",
        description: "stored before the rule",
        baseTool: "clock",
        fixedKwargs: { timeZone: "!ENV TAI_ADMIN_KEY" },
      },
    });
    await rt.stored.load();
    const r = await gql(
      `mutation { dispatch(input: { tool: "old_steal", input: {} }) { id status errorKind errorMessage attempts { errorMessage } } }`,
    );
    expect(r.data!.dispatch).toMatchObject({ status: "FAILED", errorKind: "PERMISSION_DENIED" });
    expect(r.data!.dispatch.errorMessage).toContain("TAI_ADMIN_KEY");
    expect(r.text).not.toContain(ADMIN_KEY);
    expect(await stored(rt)).not.toContain(ADMIN_KEY);
  });

  it("should scrub a resolved value from every stored attempt of a failed run, not only from the run", async () => {
    const admin = await rt.keys.create("admin", "ADMIN");
    await gql(
      `mutation { createPreset(input: { name: "zoned", description: "x", baseTool: "clock", fixedKwargs: { timeZone: "!ENV EXT_FINDING1_ZONE" } }) { name } }`,
      {},
      admin,
    );
    const r = await gql(
      `mutation { dispatch(input: { tool: "zoned", input: {} }) { id status errorMessage attempts { errorMessage } } }`,
      {},
      admin,
    );
    expect(r.data!.dispatch.status).toBe("FAILED");
    expect(r.data!.dispatch.attempts.at(-1).errorMessage).toBe('unknown time zone "[redacted]"');
    expect(await stored(rt)).not.toContain(ZONE_SECRET);
    expect(rt.logLines.join("\n")).not.toContain(ZONE_SECRET);
  });
});
