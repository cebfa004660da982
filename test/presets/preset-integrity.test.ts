import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * Preset writes keep what is stored composable (seed 000/001, SPEC §4–§6): a preset write
 * binds the combos it builds on, as a manifest write does; changing a preset's base re-checks
 * the presets (and manifest branches) built on it; a preset the active manifest names cannot
 * be deleted. Every refusal leaves stored data unchanged.
 */
describe("preset writes and what they build on or what builds on them", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;
  /** The regions the `region` extension's backend currently serves. */
  let regions: Set<string>;
  let regionBinds: number;

  beforeEach(async () => {
    const app = new App();
    regions = new Set(["eu"]);
    regionBinds = 0;
    app.tool(
      {
        name: "greet",
        description: "Greet someone.",
        input: z.object({ name: z.string(), language: z.enum(["en", "fr"]), punctuation: z.string().default("!") }),
      },
      (i) => `${i.language === "fr" ? "Bonjour" : "Hello"} ${i.name}${i.punctuation}`,
    );
    app.tool({ name: "shout", description: "Upper-case a text.", input: z.object({ text: z.string() }) }, ({ text }) =>
      text.toUpperCase(),
    );
    app.extension({
      name: "region",
      kind: "BACKEND",
      description: "Routes the call to a regional backend; refuses a region it does not serve.",
      configSchema: {
        type: "object",
        required: ["region"],
        properties: { region: { type: "string" } },
        additionalProperties: false,
      },
      create: (tool, config) => {
        regionBinds++;
        if (!regions.has(config.region as string)) throw new Error(`region "${String(config.region)}" is not served`);
        return {
          ...tool,
          run: async (input, ctx) => `[${String(config.region)}] ${JSON.stringify(await tool.run(input, ctx))}`,
        };
      },
    });
    app.extension({
      name: "keyed",
      kind: "WRAPPER",
      description: "Caches by one input property, which the tool must have.",
      configSchema: {
        type: "object",
        required: ["key"],
        properties: { key: { type: "string" } },
        additionalProperties: false,
      },
      create: (tool, config) => {
        if (!Object.hasOwn((tool.inputSchema.properties ?? {}) as object, config.key as string))
          throw new Error(`"${tool.name}" has no input property "${String(config.key)}"`);
        return tool;
      },
    });
    rt = await testRuntime({ app, config: { demo: false } });
    gql = gqlClient(rt);
    admin = await rt.keys.create("admin", "ADMIN");
  });
  afterEach(() => rt.dispose());

  const create = (name: string, baseTool: string, fixedKwargs: Record<string, unknown>) =>
    gql(
      `mutation($i: PresetInput!) { createPreset(input: $i) { name version } }`,
      { i: { name, description: `${name}.`, baseTool, fixedKwargs } },
      admin,
    );
  const update = (name: string, version: number, baseTool: string, fixedKwargs: Record<string, unknown>) =>
    gql(
      `mutation($n: String!, $v: Int!, $i: PresetInput!) { updatePreset(name: $n, expectedVersion: $v, input: $i) { name version baseTool fixedKwargs } }`,
      { n: name, v: version, i: { name, description: `${name}.`, baseTool, fixedKwargs } },
      admin,
    );
  const remove = (name: string) => gql(`mutation($n: String!) { deletePreset(name: $n) }`, { n: name }, admin);
  const manifest = async (name: string, document: Record<string, unknown>) => {
    expect(
      (
        await gql(
          `mutation($i: ManifestInput!) { putManifest(input: $i) { version } }`,
          { i: { name, document } },
          admin,
        )
      ).errors,
    ).toBeUndefined();
    expect(
      (await gql(`mutation($n: String!) { activateManifest(name: $n) { active } }`, { n: name }, admin)).errors,
    ).toBeUndefined();
  };
  const stored = async () =>
    JSON.stringify([
      await rt.db.preset.findMany({ orderBy: { name: "asc" } }),
      await rt.db.manifest.findMany({ orderBy: { name: "asc" } }),
    ]);
  const ok = async (r: Promise<{ errors?: unknown }>) => expect((await r).errors).toBeUndefined();

  it("should refuse a preset over the agent runs' built-in ask_caller (it would put the built-in on the API), and store nothing", async () => {
    const before = await stored();
    const r = await create("ask_fixed", "ask_caller", { question: "Who are you?" });
    expect(r.errors![0].extensions).toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [
        { path: "/baseTool", message: '"ask_caller" is a built-in of agent runs and cannot be a preset\'s base' },
      ],
    });
    expect(await stored()).toBe(before);
  });

  describe("every manifest or preset write also binds each combo it names once before it is stored, and discards that branch", () => {
    beforeEach(() => manifest("regional", { extensions: { greet: [{ name: "region", config: { region: "eu" } }] } }));

    it("should bind the branch a preset builds on once more when the preset is written, and store it when it binds", async () => {
      const before = regionBinds;
      await ok(create("greet_eu_fr", "greet_region", { language: "fr" }));
      // Once by the write (then discarded), once by the surface rebuilt with the stored preset.
      expect(regionBinds).toBe(before + 2);
      const run = await gql(
        `mutation { dispatch(input: { tool: "greet_eu_fr", input: { name: "Ana" } }) { status content { text } } }`,
        {},
        admin,
      );
      expect(run.data!.dispatch).toEqual({ status: "SUCCEEDED", content: [{ text: '[eu] "Bonjour Ana!"' }] });
    });

    it("should refuse a preset write whose branch the factory now refuses, at the door that wrote it, naming the extension and the tool, and store nothing", async () => {
      regions.delete("eu");
      const before = await stored();
      const r = await create("greet_eu_fr", "greet_region", { language: "fr" });
      expect(r.errors![0].extensions).toMatchObject({
        code: "BAD_USER_INPUT",
        issues: [
          {
            path: "/baseTool",
            message:
              'builds on branch "greet_region", which does not bind: extension "region" on tool "greet": the factory refused: region "eu" is not served',
          },
        ],
      });
      expect(await stored()).toBe(before);
    });

    it("should bind every branch along a preset-of-a-preset chain when the outer preset is written", async () => {
      await ok(create("greet_eu_fr", "greet_region", { language: "fr" }));
      regions.delete("eu");
      const r = await create("greet_eu_fr_loud", "greet_eu_fr", { punctuation: "!!!" });
      expect(r.errors![0].extensions).toMatchObject({
        code: "BAD_USER_INPUT",
        issues: [{ path: "/baseTool", message: expect.stringContaining('extension "region" on tool "greet"') }],
      });
      expect((await rt.db.preset.findMany()).map((p) => p.name)).toEqual(["greet_eu_fr"]);
    });
  });

  describe("changing a preset's base re-checks the presets built on it", () => {
    beforeEach(async () => {
      await ok(create("greet_fr", "greet", { language: "fr" }));
      await ok(create("greet_fr_loud", "greet_fr", { punctuation: "!!!" }));
    });

    it("should refuse a new base that lacks a key a dependant bakes, naming the dependant, and store nothing", async () => {
      const before = await stored();
      const r = await update("greet_fr", 1, "shout", {});
      expect(r.errors![0].extensions).toMatchObject({
        code: "CONFLICT",
        issues: [
          {
            path: "/dependants/greet_fr_loud/fixedKwargs/punctuation",
            message: expect.stringMatching(
              /^preset "greet_fr_loud" builds on "greet_fr" and would break: punctuation is not an input property of "greet_fr"/,
            ),
          },
        ],
      });
      expect(r.errors![0].message).toContain("greet_fr_loud");
      expect(await stored()).toBe(before);
    });

    it("should refuse baking a key a dependant already bakes, naming the dependant", async () => {
      const r = await update("greet_fr", 1, "greet", { language: "fr", punctuation: "?" });
      expect(r.errors![0].extensions).toMatchObject({
        code: "CONFLICT",
        issues: [
          {
            path: "/dependants/greet_fr_loud/fixedKwargs/punctuation",
            message: expect.stringContaining('already baked by "greet_fr"'),
          },
        ],
      });
    });

    it("should re-check all the way down: a change that breaks only a grandchild is refused naming it", async () => {
      await ok(create("greet_fr_loud_ana", "greet_fr_loud", { name: "Ana" }));
      const r = await update("greet_fr", 1, "greet", { language: "fr", name: "Bob" });
      expect(r.errors![0].extensions).toMatchObject({
        code: "CONFLICT",
        issues: [
          {
            path: "/dependants/greet_fr_loud_ana/fixedKwargs/name",
            message: expect.stringContaining('already baked by "greet_fr_loud"'),
          },
        ],
      });
    });

    it("should re-bind the active manifest's branches over the changed preset and refuse a change they no longer bind over", async () => {
      await manifest("keyed", { extensions: { greet_fr: [{ name: "keyed", config: { key: "name" } }] } });
      const before = await stored();
      const r = await update("greet_fr", 1, "greet", { language: "fr", name: "Bob" });
      expect(r.errors![0].extensions).toMatchObject({
        code: "CONFLICT",
        issues: [
          {
            path: "/dependants/greet_fr_keyed",
            message: expect.stringContaining(
              'the active manifest\'s branch "greet_fr_keyed" would no longer bind: extension "keyed" on tool "greet_fr"',
            ),
          },
        ],
      });
      expect(await stored()).toBe(before);
    });

    it("should accept a change every dependant still builds on, and serve the dependants over it", async () => {
      const r = await update("greet_fr", 1, "greet", { language: "en" });
      expect(r.data!.updatePreset).toMatchObject({ version: 2, fixedKwargs: { language: "en" } });
      const run = await gql(
        `mutation { dispatch(input: { tool: "greet_fr_loud", input: { name: "Ana" } }) { status content { text } } }`,
        {},
        admin,
      );
      expect(run.data!.dispatch).toEqual({ status: "SUCCEEDED", content: [{ text: "Hello Ana!!!" }] });
    });
  });

  describe("deleting a preset that the active manifest names is refused, naming the manifest", () => {
    beforeEach(() => ok(create("greet_fr", "greet", { language: "fr" })));

    it.each([
      ["its tool selection", { tools: { include: ["greet", "greet_fr"] } }, "/tools/include/1"],
      [
        "its extensions",
        { extensions: { greet_fr: [{ name: "region", config: { region: "eu" } }] } },
        "/extensions/greet_fr",
      ],
      [
        "its retry declarations",
        { retry: { greet_fr: { maxAttempts: 2, idempotent: true, retryable: true } } },
        "/retry/greet_fr",
      ],
    ])(
      "should refuse it when the active manifest names it in %s (CONFLICT), and keep it",
      async (_where, document, at) => {
        await manifest("prod", document);
        const before = await stored();
        const r = await remove("greet_fr");
        expect(r.errors![0].message).toContain('the active manifest "prod" names it');
        expect(r.errors![0].extensions).toMatchObject({
          code: "CONFLICT",
          issues: [{ path: `/manifests/prod${at}`, message: 'the active manifest "prod" names "greet_fr"' }],
        });
        expect(await stored()).toBe(before);
      },
    );

    it("should delete it once the active manifest no longer names it, and when only a glob matches it", async () => {
      await manifest("prod", { tools: { include: ["greet_fr"] } });
      expect((await remove("greet_fr")).errors).toBeDefined();
      await manifest("globbed", { tools: { include: ["greet*"] } });
      expect((await remove("greet_fr")).data).toEqual({ deletePreset: true });
      expect(await rt.db.preset.count()).toBe(0);
    });
  });
});
