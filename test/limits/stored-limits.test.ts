import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { fakeApp, fakeInput, PUT } from "../graphql/connector-support.ts";

/**
 * Limits an ADMIN sets on stored configuration (docs/flow-control.md §2): a stored preset's, and a connector tool's
 * (its decision's `limits`), served as `Tool.limits` and enforced at the chokepoint; a preset's runs also count
 * against its base's limits. A lower caller is refused and bad limits are named at their paths; nothing is stored.
 */
describe("limits on stored presets and connector tools", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  const keys: Record<string, string> = {};
  const { app, fake } = fakeApp();
  app.tool(
    {
      name: "metered",
      description: "Answers.",
      input: z.object({ n: z.number() }),
      limits: { rate: { tokens: 3, intervalSeconds: 60 } },
    },
    ({ n }) => n,
  );

  beforeAll(async () => {
    rt = await testRuntime({ app });
    gql = gqlClient(rt);
    for (const role of ["ADMIN", "USER"] as const)
      keys[role] = await rt.keys.create(`limits-${role.toLowerCase()}`, role);
  });
  afterAll(async () => {
    await rt?.dispose();
  });

  const CREATE = `mutation($i: PresetInput!) { createPreset(input: $i) { name limits { declaredOn rate { tokens intervalSeconds } } } }`;
  const DISPATCH = `mutation($t: String!, $i: JSONObject!) { dispatch(input: { tool: $t, input: $i }) { status errorKind details } }`;
  const dispatch = async (tool: string, input: Record<string, unknown>) =>
    (
      (await gql(DISPATCH, { t: tool, i: input }, keys.USER)).data as {
        dispatch: { status: string; errorKind: string | null; details: { retryAfterSeconds?: number } | null };
      }
    ).dispatch;

  it("should refuse limits on a preset from a USER (FORBIDDEN) and bad ones from an ADMIN at their paths, storing nothing", async () => {
    const input = { name: "metered_one", description: "One.", baseTool: "metered", fixedKwargs: { n: 1 } };
    const user = await gql(CREATE, { i: { ...input, limits: { rate: { tokens: 1 } } } }, keys.USER);
    expect(user.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    const bad = await gql(
      CREATE,
      { i: { ...input, limits: { rate: { tokens: 0, per: "everyone" }, cap: 2 } } },
      keys.ADMIN,
    );
    expect(bad.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    expect((bad.errors?.[0]?.extensions?.issues as { path: string }[]).map((i) => i.path).sort()).toEqual([
      "/limits/cap",
      "/limits/rate/per",
      "/limits/rate/tokens",
    ]);
    expect(await rt.presets.get("metered_one")).toBeNull();
  });

  it("should enforce an ADMIN's preset limits and its base's together: the preset cannot escape the tool's rate", async () => {
    const created = await gql(
      CREATE,
      {
        i: {
          name: "metered_two",
          description: "Two.",
          baseTool: "metered",
          fixedKwargs: { n: 2 },
          limits: { rate: { tokens: 2, intervalSeconds: 60 } },
        },
      },
      keys.ADMIN,
    );
    expect(created.errors).toBeUndefined();
    expect((created.data as { createPreset: unknown }).createPreset).toEqual({
      name: "metered_two",
      limits: [
        { declaredOn: "metered_two", rate: { tokens: 2, intervalSeconds: 60 } },
        { declaredOn: "metered", rate: { tokens: 3, intervalSeconds: 60 } },
      ],
    });
    const viaPreset = [
      await dispatch("metered_two", {}),
      await dispatch("metered_two", {}),
      await dispatch("metered_two", {}),
    ];
    expect(viaPreset.map((r) => r.status)).toEqual(["SUCCEEDED", "SUCCEEDED", "FAILED"]);
    expect(viaPreset[2]).toMatchObject({
      errorKind: "RATE_LIMITED",
      details: { limit: { reason: "rate", declaredOn: "metered_two" } },
    });
    // The two preset runs took two of the tool's three tokens: one is left for the tool itself.
    expect((await dispatch("metered", { n: 5 })).status).toBe("SUCCEEDED");
    expect(await dispatch("metered", { n: 6 })).toMatchObject({
      status: "FAILED",
      errorKind: "RATE_LIMITED",
      details: { limit: { reason: "rate", declaredOn: "metered" } },
    });
  });

  it("should serve and enforce a connector tool's limits from its stored decision, refusing bad ones at their path", async () => {
    const bad = await gql(
      PUT,
      { i: fakeInput("capped", { tools: { echo: { limits: { concurrency: { max: 0 } } } } }) },
      keys.ADMIN,
    );
    expect(bad.errors?.[0]?.extensions?.issues).toEqual([
      { path: "/tools/echo/limits/concurrency/max", message: "must be an integer from 1 to 10000 (bodies at once)" },
    ]);
    const put = await gql(
      PUT,
      { i: fakeInput("capped", { tools: { echo: { limits: { rate: { tokens: 1, intervalSeconds: 60 } } } } }) },
      keys.ADMIN,
    );
    expect(put.errors).toBeUndefined();
    const tool = await gql(`{ tool(name: "capped_echo") { limits { declaredOn rate { tokens } } } }`, {}, keys.USER);
    expect(tool.data).toEqual({ tool: { limits: [{ declaredOn: "capped_echo", rate: { tokens: 1 } }] } });
    expect((await dispatch("capped_echo", { text: "a" })).status).toBe("SUCCEEDED");
    expect(await dispatch("capped_echo", { text: "b" })).toMatchObject({ status: "FAILED", errorKind: "RATE_LIMITED" });
    expect(fake.upstream("capped").calls).toHaveLength(1);
  });

  it("should hold an ADMIN's key to its own rate across every tool, refusing a bad rate at its path with no key created", async () => {
    const CREATE_KEY = `mutation($r: JSONObject) { createApiKey(name: "metered-key", role: USER, rate: $r) }`;
    const bad = await gql(CREATE_KEY, { r: { tokens: -1 } }, keys.ADMIN);
    expect(bad.errors?.[0]?.extensions).toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: "/rate/tokens", message: "must be an integer from 1 to 1000000 (dispatches per interval)" }],
    });
    expect((await rt.keys.list()).some((k) => k.name === "metered-key")).toBe(false);
    const created = await gql(CREATE_KEY, { r: { tokens: 2, intervalSeconds: 60 } }, keys.ADMIN);
    const key = (created.data as { createApiKey: string }).createApiKey;
    const run = async (tool: string, input: Record<string, unknown>) =>
      (
        (await gql(DISPATCH, { t: tool, i: input }, key)).data as {
          dispatch: { status: string; errorMessage?: string };
        }
      ).dispatch;
    expect((await run("echo", { text: "a" })).status).toBe("SUCCEEDED");
    // Refused by the tool's own rate (the earlier test spent it): the key's token is given back.
    expect(await run("capped_echo", { text: "b" })).toMatchObject({ status: "FAILED", errorKind: "RATE_LIMITED" });
    expect((await run("echo", { text: "c" })).status).toBe("SUCCEEDED");
    const third = await gql(
      `mutation { dispatch(input: { tool: "echo", input: { text: "d" } }) { status errorKind errorMessage } }`,
      {},
      key,
    );
    expect(third.data).toEqual({
      dispatch: {
        status: "FAILED",
        errorKind: "RATE_LIMITED",
        errorMessage: 'the key "metered-key" makes at most 2 dispatches every 60 s',
      },
    });
    expect((await rt.keys.list()).find((k) => k.name === "metered-key")?.rate).toMatchObject({
      tokens: 2,
      intervalSeconds: 60,
    });
  });
  it("should let an ADMIN change a key's rate and remove it, refusing a USER, a bad rate and an unknown key, nothing changed", async () => {
    const SET = `mutation($n: String!, $r: JSONObject) { setApiKeyRate(name: $n, rate: $r) }`;
    const key = await rt.keys.create("rerated-key", "USER");
    const echo = async () =>
      ((await gql(DISPATCH, { t: "echo", i: { text: "x" } }, key)).data as { dispatch: { errorKind?: string } })
        .dispatch;
    const rateOf = async () => (await rt.keys.list()).find((k) => k.name === "rerated-key")?.rate ?? null;
    expect((await gql(SET, { n: "rerated-key", r: { tokens: 1 } }, keys.USER)).errors?.[0]?.extensions?.code).toBe(
      "FORBIDDEN",
    );
    const bad = await gql(SET, { n: "rerated-key", r: { tokens: 0 } }, keys.ADMIN);
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "/rate/tokens" }] });
    expect((await gql(SET, { n: "no-such-key", r: null }, keys.ADMIN)).errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect(await rateOf()).toBeNull();

    expect((await gql(SET, { n: "rerated-key", r: { tokens: 1, intervalSeconds: 60 } }, keys.ADMIN)).data).toEqual({
      setApiKeyRate: true,
    });
    expect(await rateOf()).toMatchObject({ tokens: 1, intervalSeconds: 60 });
    expect((await echo()).errorKind ?? null).toBeNull();
    expect((await echo()).errorKind).toBe("RATE_LIMITED");
    await gql(SET, { n: "rerated-key", r: null }, keys.ADMIN);
    expect(await rateOf()).toBeNull();
    expect((await echo()).errorKind ?? null).toBeNull();
  });
});
