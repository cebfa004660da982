import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { gqlClient } from "../helpers/gql.ts";
import { freshDatabase } from "../helpers/databases.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const SECRET = "finding2-kv-secret-a1b2c3d4e5";

describe("finding 2: a secret a body stores stays scrubbed after a restart and on another instance", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  const open: TestRuntime[] = [];
  const start = async () => {
    const rt = await testRuntime({ databaseUrl: database.url });
    open.push(rt);
    return rt;
  };
  beforeEach(async () => {
    process.env.EXT_FINDING2_SECRET = SECRET;
    database = await freshDatabase();
  });
  afterEach(async () => {
    delete process.env.EXT_FINDING2_SECRET;
    for (const rt of open.splice(0)) await rt.close();
    await database.drop();
  });

  const putPreset = async (rt: TestRuntime) => {
    const gql = gqlClient(rt);
    const admin = await rt.keys.create("admin", "ADMIN");
    const created = await gql(
      `mutation { createPreset(input: { name: "store_token", description: "x", baseTool: "kv_put", fixedKwargs: { key: "token", value: { token: "!ENV EXT_FINDING2_SECRET" } } }) { name } }`,
      {},
      admin,
    );
    expect(created.errors).toBeUndefined();
    return { gql, admin };
  };

  it("should store the resolved value scrubbed, so a READER reads [redacted] after a restart", async () => {
    const first = await start();
    const { gql, admin } = await putPreset(first);
    expect(
      (await gql(`mutation { dispatch(input: { tool: "store_token", input: {} }) { status } }`, {}, admin)).data!
        .dispatch.status,
    ).toBe("SUCCEEDED");
    await first.close();

    const second = await start();
    const reader = await second.keys.create("reader", "READER");
    const read = await gqlClient(second)(
      `mutation { dispatch(input: { tool: "kv_get", input: { key: "token" } }) { status data } }`,
      {},
      reader,
    );
    expect(read.data!.dispatch).toMatchObject({
      status: "SUCCEEDED",
      data: { key: "token", value: { token: "[redacted]" } },
    });
    expect(read.text).not.toContain(SECRET);
    expect(JSON.stringify(await second.db.kvEntry.findMany())).not.toContain(SECRET);
  });

  it("should know a stored preset's secret on an instance started after it was written, before that instance runs it", async () => {
    const first = await start();
    await putPreset(first);
    const other = await start();
    expect(other.secrets.scrubText(`token=${SECRET}`)).toBe("token=[redacted]");
    // A READER's echo of the value through another tool is scrubbed too: served and stored.
    const reader = await other.keys.create("reader", "READER");
    const echoed = await gqlClient(other)(
      `mutation($t: String!) { dispatch(input: { tool: "echo", input: { text: $t } }) { status data } }`,
      { t: SECRET },
      reader,
    );
    expect(echoed.text).not.toContain(SECRET);
    expect(JSON.stringify([await other.db.run.findMany(), await other.db.runEvent.findMany()])).not.toContain(SECRET);
  });

  it("should learn the secret of a preset another instance writes, through the stored configuration's reload", async () => {
    const first = await start();
    const other = await start();
    await putPreset(first);
    await other.stored.load();
    expect(other.secrets.scrubText(SECRET)).toBe("[redacted]");
  });
});
