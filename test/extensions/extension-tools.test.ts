import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { defineTool } from "../../src/tools/define-tool.ts";
import type { BranchTool } from "../../src/extensions/extension.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const object = {
  type: "object",
  properties: { text: { type: "string" } },
  required: ["text"],
  additionalProperties: false,
};
const passThrough = (tool: BranchTool) => ({ ...tool });

/** An extension that brings three tools: a plain mapping, a defineTool result (fenced), and a curated one. */
function appWithExtensionTools(): App {
  const app = new App();
  app.tool({ name: "plain", description: "Registered directly.", input: z.object({}) }, () => "plain");
  app.extension({
    name: "toolkit",
    kind: "WRAPPER",
    description: "Brings its own tools.",
    create: passThrough,
    tools: [
      {
        name: "word_count",
        description: "Count the words in a string.",
        parameters: object,
        execute: ({ text }) => ({ words: String(text).split(/\s+/).filter(Boolean).length }),
      },
      defineTool({
        name: "vault_peek",
        label: "Vault",
        description: "Admin only.",
        parameters: object,
        execute: () => "secret-ish",
        tier: "fenced",
      }),
      { name: "hidden_helper", description: "A base only.", parameters: object, execute: () => "h", apiTool: false },
    ],
  });
  return app;
}

describe("ExtensionToolDefinition: 'A tool an extension registered, as the registry holds it'", () => {
  let rt: TestRuntime | undefined;
  afterEach(async () => {
    await rt?.dispose();
    rt = undefined;
  });

  it("should serve each tool an extension registered with source naming the extension, and null for a tool registered directly", async () => {
    rt = await testRuntime({ app: appWithExtensionTools(), config: { demo: false } });
    const gql = gqlClient(rt);
    const admin = await rt.keys.create("admin", "ADMIN");
    const tools = (await gql(`{ tools(origin: TOOL) { name label source tier } }`, {}, admin)).data!.tools;
    expect(tools).toEqual([
      { name: "plain", label: null, source: null, tier: "READ" },
      { name: "vault_peek", label: "Vault", source: "toolkit", tier: "FENCED" },
      { name: "word_count", label: "word_count", source: "toolkit", tier: "READ" },
    ]);
  });

  it("should list on the extension catalog the tools it registered that are on the surface, leaving a curated one out", async () => {
    rt = await testRuntime({ app: appWithExtensionTools(), config: { demo: false } });
    const gql = gqlClient(rt);
    const admin = await rt.keys.create("admin", "ADMIN");
    const toolkit = (await gql(`{ extensions { name tools } }`, {}, admin)).data!.extensions.find(
      (e: { name: string }) => e.name === "toolkit",
    );
    expect(toolkit).toEqual({ name: "toolkit", tools: ["word_count", "vault_peek"] });
  });

  it("should run an extension's tool through the chokepoint like any tool, its input validated at the door", async () => {
    rt = await testRuntime({ app: appWithExtensionTools(), config: { demo: false } });
    const gql = gqlClient(rt);
    const user = await rt.keys.create("user", "USER");
    const ok = await gql(
      `mutation { dispatch(input: { tool: "word_count", input: { text: "one two three" } }) { status data } }`,
      {},
      user,
    );
    expect(ok.data!.dispatch).toEqual({ status: "SUCCEEDED", data: { words: 3 } });
    const bad = await gql(
      `mutation { dispatch(input: { tool: "word_count", input: { txt: "x" } }) { status errorKind } }`,
      {},
      user,
    );
    expect(bad.data!.dispatch).toEqual({ status: "FAILED", errorKind: "INVALID_INPUT" });
  });

  it("should hold tiers on an extension's tool: a fenced one is refused to a USER and run for an ADMIN", async () => {
    rt = await testRuntime({ app: appWithExtensionTools(), config: { demo: false } });
    const gql = gqlClient(rt);
    const user = await rt.keys.create("user", "USER");
    const admin = await rt.keys.create("admin", "ADMIN");
    const q = `mutation { dispatch(input: { tool: "vault_peek", input: { text: "x" } }) { status errorKind } }`;
    expect((await gql(q, {}, user)).data!.dispatch).toEqual({ status: "FAILED", errorKind: "PERMISSION_DENIED" });
    expect((await gql(q, {}, admin)).data!.dispatch).toEqual({ status: "SUCCEEDED", errorKind: null });
  });

  it("should apply curation to an extension's tool: apiTool false keeps it off the surface, yet a preset may build on it", async () => {
    rt = await testRuntime({ app: appWithExtensionTools(), config: { demo: false } });
    const gql = gqlClient(rt);
    const admin = await rt.keys.create("admin", "ADMIN");
    expect((await gql(`{ tool(name: "hidden_helper") { name } }`, {}, admin)).data!.tool).toBeNull();
    const run = await gql(
      `mutation { dispatch(input: { tool: "hidden_helper", input: { text: "x" } }) { status errorKind } }`,
      {},
      admin,
    );
    expect(run.data!.dispatch).toEqual({ status: "FAILED", errorKind: "NOT_FOUND" });
    const preset = await gql(
      `mutation { createPreset(input: { name: "helper_x", description: "Helper with x.", baseTool: "hidden_helper", fixedKwargs: { text: "x" } }) { name } }`,
      {},
      admin,
    );
    expect(preset.errors).toBeUndefined();
    expect(
      (
        await gql(
          `mutation { dispatch(input: { tool: "helper_x", input: {} }) { status content { text } } }`,
          {},
          admin,
        )
      ).data!.dispatch,
    ).toEqual({
      status: "SUCCEEDED",
      content: [{ text: "h" }],
    });
  });

  it("should validate the plain mapping at the boundary, naming the extension, the tool's place and the rule, and register nothing", () => {
    const app = new App();
    const bad = () =>
      app.extension({
        name: "broken",
        kind: "WRAPPER",
        description: "B.",
        create: passThrough,
        tools: [
          { name: "ok", description: "Ok.", parameters: object, execute: () => "" },
          { name: "no good", description: "X.", parameters: object, execute: () => "" },
        ],
      });
    expect(bad).toThrow(/app\.extension: "broken": tools\[1\]: defineTool \[wire-safe-name\]/);
    expect([app.extensions.size, app.tools.size]).toEqual([0, 0]);
  });

  it("should refuse an extension whose tool name is taken, and leave the registry as it was", () => {
    const app = new App();
    app.tool({ name: "word_count", description: "Mine.", input: z.object({}) }, () => "");
    expect(() =>
      app.extension({
        name: "dup",
        kind: "WRAPPER",
        description: "D.",
        create: passThrough,
        tools: [{ name: "word_count", description: "Theirs.", parameters: object, execute: () => "" }],
      }),
    ).toThrow(/"dup": its tool "word_count" is already registered \(inline\)/);
    expect([...app.extensions.keys()]).toEqual([]);
    expect(app.tools.get("word_count")!.description).toBe("Mine.");
  });
});

describe("An extension that takes settings declares their JSON Schema with config_schema= (the declaration, not the factory's arity)", () => {
  const schema = { type: "object", properties: { label: { type: "string" } } };

  it("should accept a factory written (tool, config = {}) once it declares a configSchema, although its length is 1", () => {
    const create = (tool: BranchTool, config: Record<string, unknown> = {}) => ({
      ...tool,
      label: String(config.label),
    });
    expect(create.length).toBe(1);
    expect(
      new App().extension({ name: "tag", kind: "WRAPPER", description: "Tag.", configSchema: schema, create })
        .configSchema,
    ).toEqual(schema);
  });

  it("should accept a rest-parameter factory with a schema, and still refuse a visible config parameter with no schema", () => {
    const rest = (...args: [BranchTool, Record<string, unknown>]) => ({ ...args[0], label: String(args[1].label) });
    expect(
      new App().extension({ name: "r", kind: "WRAPPER", description: "R.", configSchema: schema, create: rest })
        .configSchema,
    ).toEqual(schema);
    const visible = (tool: BranchTool, _config: Record<string, unknown>) => ({ ...tool });
    expect(() => new App().extension({ name: "v", kind: "WRAPPER", description: "V.", create: visible })).toThrow(
      /takes config, so it must declare a configSchema/,
    );
  });

  describe("bound through a manifest", () => {
    let rt: TestRuntime | undefined;
    afterEach(async () => {
      await rt?.dispose();
      rt = undefined;
    });

    it("should hand a (tool, config = {}) factory the validated settings, and a schema-less factory empty settings", async () => {
      const app = new App();
      const seen: Record<string, unknown>[] = [];
      app.tool({ name: "lookup", description: "Look up.", input: z.object({}) }, () => "v");
      app.extension({
        name: "tag",
        kind: "WRAPPER",
        description: "Tag.",
        configSchema: { type: "object", properties: { label: { type: "string" } }, required: ["label"] },
        create: (tool, config = {}) => (seen.push(config), { ...tool, label: String(config.label) }),
      });
      app.extension({
        name: "bare",
        kind: "WRAPPER",
        description: "Bare.",
        create: (tool: BranchTool, ...rest: unknown[]) => (seen.push({ rest }), { ...tool }),
      });
      rt = await testRuntime({ app, config: { demo: false } });
      const gql = gqlClient(rt);
      const admin = await rt.keys.create("admin", "ADMIN");
      const put = await gql(
        `mutation($d: JSONObject!) { putManifest(input: { name: "m", document: $d }) { name } }`,
        { d: { extensions: { lookup: [[{ name: "tag", config: { label: "nightly" } }], ["bare"]] } } },
        admin,
      );
      expect(put.errors).toBeUndefined();
      await gql(`mutation { activateManifest(name: "m") { name } }`, {}, admin);
      expect((await gql(`{ tool(name: "lookup_tag") { label } }`, {}, admin)).data!.tool).toEqual({ label: "nightly" });
      expect(seen).toContainEqual({ label: "nightly" });
      expect(seen).toContainEqual({ rest: [{}] });
    });
  });
});
