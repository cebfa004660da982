import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const PRESET_FIELDS = "name baseTool fixedKwargs version tier retryPolicy { maxAttempts declaredOn }";

describe("presets", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;
  let user: string;
  let seen: Record<string, unknown>[];

  beforeEach(async () => {
    const app = new App();
    seen = [];
    app.tool(
      {
        name: "greet",
        description: "Greet someone in a language.",
        input: z.object({ name: z.string(), language: z.enum(["en", "fr"]), punctuation: z.string().default("!") }),
        retry: { maxAttempts: 3, idempotent: true, retryable: true },
      },
      (input) => {
        seen.push(input);
        return `${input.language === "fr" ? "Bonjour" : "Hello"} ${input.name}${input.punctuation}`;
      },
    );
    app.tool(
      { name: "vault", description: "Fenced tool.", input: z.object({ path: z.string() }), tier: "fenced" },
      ({ path }) => `read ${path}`,
    );
    rt = await testRuntime({ app });
    gql = gqlClient(rt);
    admin = await rt.keys.create("admin", "ADMIN");
    user = await rt.keys.create("user", "USER");
  });
  afterEach(() => rt.dispose());

  const create = (input: Record<string, unknown>, key = user) =>
    gql(
      `mutation($input: PresetInput!) { createPreset(input: $input) { ${PRESET_FIELDS} } }`,
      { input: { description: "a preset", fixedKwargs: {}, ...input } },
      key,
    );
  const dispatch = (tool: string, input: Record<string, unknown>, key = user) =>
    gql(
      `mutation($tool: String!, $input: JSONObject!) { dispatch(input: { tool: $tool, input: $input }) { status data content { text } errorKind errorMessage details } }`,
      { tool, input },
      key,
    );
  const storedPresets = async () => JSON.stringify(await rt.db.preset.findMany({ orderBy: { name: "asc" } }));

  describe("a preset of a preset of a tool", () => {
    beforeEach(async () => {
      expect(
        (await create({ name: "greet_fr", baseTool: "greet", fixedKwargs: { language: "fr" } })).errors,
      ).toBeUndefined();
      expect(
        (await create({ name: "greet_fr_loud", baseTool: "greet_fr", fixedKwargs: { punctuation: "!!!" } })).errors,
      ).toBeUndefined();
    });

    it("should derive its input schema by removing every baked property from properties and required", async () => {
      const r = await gql(`{ tool(name: "greet_fr_loud") { origin baseTool inputSchema fixedKwargs } }`, {}, user);
      const t = r.data!.tool;
      expect(t.origin).toBe("PRESET");
      expect(t.baseTool).toBe("greet_fr");
      expect(Object.keys(t.inputSchema.properties)).toEqual(["name"]);
      expect(t.inputSchema.required).toEqual(["name"]);
      expect(t.fixedKwargs).toEqual({ punctuation: "!!!" });
    });

    it("should run the tool's body with every baked constant merged in", async () => {
      const r = await dispatch("greet_fr_loud", { name: "Ada" });
      expect(r.data!.dispatch).toMatchObject({ status: "SUCCEEDED", content: [{ text: "Bonjour Ada!!!" }] });
      expect(seen).toEqual([{ name: "Ada", language: "fr", punctuation: "!!!" }]);
    });

    it("should refuse a caller who passes a baked key, naming the key, without running the body", async () => {
      const r = await dispatch("greet_fr_loud", { name: "Ada", language: "en" });
      expect(r.data!.dispatch.status).toBe("FAILED");
      expect(r.data!.dispatch.errorKind).toBe("INVALID_INPUT");
      expect(r.data!.dispatch.errorMessage).toContain("/language");
      expect(r.data!.dispatch.details.issues[0]).toEqual({
        path: "/language",
        message: 'is baked by preset "greet_fr_loud" and cannot be overridden',
      });
      expect(seen).toEqual([]);
    });

    it("should inherit the tool's retry policy and name the ancestor it was declared on", async () => {
      const r = await gql(
        `{ tool(name: "greet_fr_loud") { retryPolicy { maxAttempts declaredOn } } preset(name: "greet_fr_loud") { retryPolicy { declaredOn } } }`,
        {},
        user,
      );
      expect(r.data!.tool.retryPolicy).toEqual({ maxAttempts: 3, declaredOn: "greet" });
      expect(r.data!.preset.retryPolicy.declaredOn).toBe("greet");
    });

    it("should prefer the nearest declared preset's own policy over the tool's", async () => {
      const cur = await gql(`{ preset(name: "greet_fr") { version } }`, {}, user);
      const up = await gql(
        `mutation($input: PresetInput!, $v: Int!) { updatePreset(name: "greet_fr", input: $input, expectedVersion: $v) { version } }`,
        {
          input: {
            name: "greet_fr",
            description: "fr",
            baseTool: "greet",
            fixedKwargs: { language: "fr" },
            retryPolicy: { maxAttempts: 2, idempotent: true },
          },
          v: cur.data!.preset.version,
        },
        user,
      );
      expect(up.errors).toBeUndefined();
      const r = await gql(`{ tool(name: "greet_fr_loud") { retryPolicy { maxAttempts declaredOn } } }`, {}, user);
      expect(r.data!.tool.retryPolicy).toEqual({ maxAttempts: 2, declaredOn: "greet_fr" });
    });

    it("should take its base's tier", async () => {
      await create({ name: "vault_etc", baseTool: "vault", fixedKwargs: { path: "/etc" } }, admin);
      await create({ name: "vault_etc_again", baseTool: "vault_etc", fixedKwargs: {} }, admin);
      const r = await gql(
        `{ a: tool(name: "vault_etc_again") { tier } b: tool(name: "greet_fr_loud") { tier } }`,
        {},
        admin,
      );
      expect(r.data).toEqual({ a: { tier: "FENCED" }, b: { tier: "READ" } });
      const run = await dispatch("vault_etc_again", {}, user);
      expect(run.data!.dispatch).toMatchObject({ status: "FAILED", errorKind: "PERMISSION_DENIED" });
    });
  });

  describe("refused writes leave stored data unchanged", () => {
    it("should refuse a non-admin preset over a FENCED tool with FORBIDDEN", async () => {
      const before = await storedPresets();
      const r = await create({ name: "vault_p", baseTool: "vault", fixedKwargs: { path: "/x" } }, user);
      expect(r.errors![0].extensions!.code).toBe("FORBIDDEN");
      expect(r.errors![0].message).toContain("ADMIN");
      expect(await storedPresets()).toBe(before);
    });

    it("should refuse an unknown base, naming it", async () => {
      const r = await create({ name: "p", baseTool: "nope" });
      expect(r.errors![0].extensions).toMatchObject({
        code: "BAD_USER_INPUT",
        issues: [{ path: "/baseTool", message: 'no tool, preset or branch named "nope"' }],
      });
      expect(await storedPresets()).toBe("[]");
    });

    it("should refuse a cycle A → B → A, naming the cycle", async () => {
      await create({ name: "a", baseTool: "greet", fixedKwargs: {} });
      await create({ name: "b", baseTool: "a", fixedKwargs: {} });
      const before = await storedPresets();
      const r = await gql(
        `mutation($input: PresetInput!) { updatePreset(name: "a", input: $input, expectedVersion: 1) { version } }`,
        { input: { name: "a", description: "x", baseTool: "b", fixedKwargs: {} } },
        user,
      );
      expect(r.errors![0].extensions!.code).toBe("BAD_USER_INPUT");
      expect(r.errors![0].extensions!.issues).toContainEqual({
        path: "/baseTool",
        message: "would make a cycle: a → b → a",
      });
      expect(await storedPresets()).toBe(before);
    });

    it("should refuse baked keys that are not input properties and baked values that do not validate, listing each", async () => {
      const r = await create({ name: "p", baseTool: "greet", fixedKwargs: { language: "de", colour: "red" } });
      expect(r.errors![0].extensions!.code).toBe("BAD_USER_INPUT");
      const issues = r.errors![0].extensions!.issues!;
      expect(issues.map((i) => i.path).sort()).toEqual(["/fixedKwargs/colour", "/fixedKwargs/language"]);
      expect(issues.find((i) => i.path === "/fixedKwargs/language")!.message).toContain("must be one of");
      expect(await storedPresets()).toBe("[]");
    });

    it("should refuse a stale expectedVersion with CONFLICT and keep the stored version", async () => {
      await create({ name: "p", baseTool: "greet", fixedKwargs: { language: "en" } });
      const ok = await gql(
        `mutation($i: PresetInput!) { updatePreset(name: "p", input: $i, expectedVersion: 1) { version } }`,
        { i: { name: "p", description: "v2", baseTool: "greet", fixedKwargs: { language: "fr" } } },
        user,
      );
      expect(ok.data!.updatePreset.version).toBe(2);
      const before = await storedPresets();
      const stale = await gql(
        `mutation($i: PresetInput!) { updatePreset(name: "p", input: $i, expectedVersion: 1) { version } }`,
        { i: { name: "p", description: "v2b", baseTool: "greet", fixedKwargs: { language: "en" } } },
        user,
      );
      expect(stale.errors![0].extensions).toMatchObject({
        code: "CONFLICT",
        issues: [{ path: "/expectedVersion", message: "is stale (current 2)" }],
      });
      expect(await storedPresets()).toBe(before);
    });

    it("should never lose one of two concurrent updates silently: exactly one wins", async () => {
      await create({ name: "p", baseTool: "greet", fixedKwargs: { language: "en" } });
      const upd = (d: string) =>
        gql(
          `mutation($i: PresetInput!) { updatePreset(name: "p", input: $i, expectedVersion: 1) { version description } }`,
          { i: { name: "p", description: d, baseTool: "greet", fixedKwargs: {} } },
          user,
        );
      const [x, y] = await Promise.all([upd("x"), upd("y")]);
      const winners = [x, y].filter((r) => !r.errors);
      expect(winners).toHaveLength(1);
      expect([x, y].find((r) => r.errors)!.errors![0].extensions!.code).toBe("CONFLICT");
      const stored = await rt.db.preset.findUnique({ where: { name: "p" } });
      expect(stored!.version).toBe(2);
    });

    it("should refuse deleting a preset others build on, naming the dependants", async () => {
      await create({ name: "a", baseTool: "greet", fixedKwargs: {} });
      await create({ name: "b", baseTool: "a", fixedKwargs: {} });
      await create({ name: "c", baseTool: "a", fixedKwargs: {} });
      const before = await storedPresets();
      const r = await gql(`mutation { deletePreset(name: "a") }`, {}, user);
      expect(r.errors![0].extensions!.code).toBe("CONFLICT");
      expect(r.errors![0].message).toContain('"b", "c"');
      expect(await storedPresets()).toBe(before);
      expect((await gql(`mutation { deletePreset(name: "b") }`, {}, user)).data).toEqual({ deletePreset: true });
    });

    it("should refuse a READER writing a preset with FORBIDDEN", async () => {
      const reader = await rt.keys.create("reader", "READER");
      const r = await create({ name: "p", baseTool: "greet", fixedKwargs: {} }, reader);
      expect(r.errors![0].extensions!.code).toBe("FORBIDDEN");
      expect(await storedPresets()).toBe("[]");
    });

    it("should refuse a preset named like a registered tool", async () => {
      const r = await create({ name: "vault", baseTool: "greet", fixedKwargs: {} }, admin);
      expect(r.errors![0].extensions!.issues).toContainEqual({
        path: "/name",
        message: "is already the name of a tool on the surface",
      });
    });

    it("should refuse a non-idempotent retrying policy on a preset", async () => {
      const r = await create({
        name: "p",
        baseTool: "greet",
        fixedKwargs: {},
        retryPolicy: { maxAttempts: 3, idempotent: false },
      });
      expect(r.errors![0].extensions!.issues![0].path).toBe("/retryPolicy/idempotent");
    });
  });
});
