import { afterEach, describe, expect, it } from "vitest";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { gql } from "../graphql/support.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/** Review (issue 31, keys): a key's scope must not be widened by the presets the key itself writes. */

const DISPATCH =
  "mutation ($tool: String!, $input: JSONObject!) { dispatch(input: { tool: $tool, input: $input }) { id status errorKind errorMessage } }";
const CREATE_PRESET = "mutation ($i: PresetInput!) { createPreset(input: $i) { name version } }";
const UPDATE_PRESET =
  "mutation ($n: String!, $i: PresetInput!, $v: Int!) { updatePreset(name: $n, input: $i, expectedVersion: $v) { name } }";

let rt: TestRuntime | undefined;
let server: TaiServer | undefined;
afterEach(async () => {
  await server?.stop();
  await rt?.dispose();
  server = rt = undefined;
});

async function setup() {
  rt = await testRuntime({ env: { TAI_ANONYMOUS_ROLE: "NONE" } });
  server = buildApp(rt);
  const as = (key: string, query: string, variables?: Record<string, unknown>) =>
    gql(server!, query, { variables, headers: { authorization: `Bearer ${key}` } });
  return { rt, as };
}

const calc = { name: "my_calc", description: "Adds.", baseTool: "calculate", fixedKwargs: { op: "add" } };

describe("a scoped key writing presets", () => {
  it("should refuse a preset over a tool outside its scope, storing nothing, so it cannot run that tool", async () => {
    const { rt, as } = await setup();
    const key = await rt.keys.create("narrow", "USER", undefined, undefined, { scope: { tools: ["echo", "my_calc"] } });
    const made = await as(key, CREATE_PRESET, { i: calc });
    expect(made.body.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect(made.body.errors?.[0]?.message).toBe(
      'the scope of API key "narrow" (its tool list) excludes tool "calculate"',
    );
    expect(await rt.db.preset.findUnique({ where: { name: "my_calc" } })).toBeNull();
    const ran = await as(key, DISPATCH, { tool: "my_calc", input: { a: 1, b: 2 } });
    expect(ran.body.data?.dispatch).not.toMatchObject({ status: "SUCCEEDED" });
  });

  it("should refuse rewriting an in-scope preset over a tool outside its scope", async () => {
    const { rt, as } = await setup();
    const admin = await rt.keys.create("root", "ADMIN");
    const made = await as(admin, CREATE_PRESET, {
      i: { name: "say_hi", description: "Hi.", baseTool: "echo", fixedKwargs: { text: "hi" } },
    });
    expect(made.body.errors).toBeUndefined();
    const key = await rt.keys.create("narrow", "USER", undefined, undefined, { scope: { tools: ["say_hi"] } });
    const rewritten = await as(key, UPDATE_PRESET, { n: "say_hi", v: 1, i: { ...calc, name: "say_hi" } });
    expect(rewritten.body.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect(await rt.db.preset.findUnique({ where: { name: "say_hi" } })).toMatchObject({ baseTool: "echo" });
  });

  it("should still let a scoped key write a preset over a tool in its scope", async () => {
    const { rt, as } = await setup();
    const key = await rt.keys.create("narrow", "USER", undefined, undefined, { scope: { tools: ["echo", "hi2"] } });
    const made = await as(key, CREATE_PRESET, {
      i: { name: "hi2", description: "Hi.", baseTool: "echo", fixedKwargs: { text: "hi" } },
    });
    expect(made.body.errors).toBeUndefined();
    const ran = await as(key, DISPATCH, { tool: "hi2", input: {} });
    expect(ran.body.data?.dispatch).toMatchObject({ status: "SUCCEEDED" });
  });
});
