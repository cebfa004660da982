import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

describe("attaching extensions through manifests", () => {
  let rt: TestRuntime;
  let app: App;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;
  let user: string;
  let factoryCalls: number;

  beforeEach(async () => {
    app = new App();
    factoryCalls = 0;
    app.tool({ name: "lookup", description: "Look a word up.", input: z.object({ word: z.string() }) }, ({ word }) => ({
      word,
      length: word.length,
    }));
    app.tool(
      { name: "store_it", description: "A write.", input: z.object({ v: z.string() }), tier: "write" },
      ({ v }) => v,
    );
    app.extension({
      name: "shout",
      kind: "WRAPPER",
      description: "Upper-cases text results.",
      create: (tool) => {
        factoryCalls++;
        return { ...tool, run: async (i, ctx) => JSON.stringify(await tool.run(i, ctx)).toUpperCase() };
      },
    });
    app.extension({
      name: "prefix",
      kind: "WRAPPER",
      description: "Prefixes results.",
      configSchema: {
        type: "object",
        required: ["prefix"],
        properties: { prefix: { type: "string", minLength: 1 } },
        additionalProperties: false,
      },
      create: (tool, config) => {
        if (config.prefix === "forbidden") throw new Error("this prefix is not allowed");
        return { ...tool, run: async (i, ctx) => `${config.prefix}${JSON.stringify(await tool.run(i, ctx))}` };
      },
    });
    app.extension({
      name: "bad_wrapper",
      kind: "WRAPPER",
      description: "Changes the schema although it is a WRAPPER.",
      create: (tool) => ({ ...tool, inputSchema: { type: "object", properties: {} } }),
    });
    rt = await testRuntime({ app, config: { demo: false } });
    gql = gqlClient(rt);
    admin = await rt.keys.create("admin", "ADMIN");
    user = await rt.keys.create("user", "USER");
  });
  afterEach(() => rt.dispose());

  const put = (name: string, document: Record<string, unknown>, v?: number) =>
    gql(
      `mutation($i: ManifestInput!, $v: Int) { putManifest(input: $i, expectedVersion: $v) { name version } }`,
      { i: { name, document }, v: v ?? null },
      admin,
    );
  const activate = (name: string) => gql(`mutation { activateManifest(name: "${name}") { name } }`, {}, admin);
  const stored = async () =>
    JSON.stringify([
      await rt.db.manifest.findMany(),
      await rt.db.manifestVersion.findMany(),
      await rt.db.preset.findMany(),
    ]);
  const issuesOf = (r: Awaited<ReturnType<typeof put>>) => r.errors![0].extensions!.issues!;

  it("should bind a branch per combo, named <tool>_<a>_<b>, leaving the original tool untouched", async () => {
    expect(
      (await put("m", { extensions: { lookup: [["shout"], [{ name: "prefix", config: { prefix: ">" } }, "shout"]] } }))
        .errors,
    ).toBeUndefined();
    await activate("m");
    const tools = (
      (await gql(`{ tools { name origin baseTool extensionStack } }`, {}, user)).data!.tools as { origin: string }[]
    ).filter((t) => t.origin !== "AGENT");
    expect(tools).toEqual([
      { name: "lookup", origin: "TOOL", baseTool: null, extensionStack: [] },
      { name: "lookup_prefix_shout", origin: "BRANCH", baseTool: "lookup", extensionStack: ["prefix", "shout"] },
      { name: "lookup_shout", origin: "BRANCH", baseTool: "lookup", extensionStack: ["shout"] },
      { name: "store_it", origin: "TOOL", baseTool: null, extensionStack: [] },
    ]);
    const d = async (tool: string) =>
      (
        await gql(
          `mutation { dispatch(input: { tool: "${tool}", input: { word: "abc" } }) { status content { text } } }`,
          {},
          user,
        )
      ).data!.dispatch;
    expect(await d("lookup")).toEqual({ status: "SUCCEEDED", content: [{ text: '{"word":"abc","length":3}' }] });
    expect(await d("lookup_shout")).toEqual({ status: "SUCCEEDED", content: [{ text: '{"WORD":"ABC","LENGTH":3}' }] });
    // prefix is innermost, shout layered over it.
    expect(await d("lookup_prefix_shout")).toEqual({
      status: "SUCCEEDED",
      content: [{ text: '">{\\"WORD\\":\\"ABC\\",\\"LENGTH\\":3}"' }],
    });
  });

  it("should call factories again for combos they already bound (once at write, again at activation)", async () => {
    await put("m", { extensions: { lookup: ["shout"] } });
    expect(factoryCalls).toBe(1);
    await activate("m");
    expect(factoryCalls).toBeGreaterThanOrEqual(2);
  });

  it("should refuse invalid settings before storing anything, naming extension and tool", async () => {
    const before = await stored();
    const r = await put("m", { extensions: { lookup: [{ name: "prefix", config: { prefix: "" } }] } });
    expect(r.errors![0].extensions!.code).toBe("BAD_USER_INPUT");
    expect(issuesOf(r)[0].message).toBe(
      'extension "prefix" on tool "lookup": invalid settings: /prefix: must NOT have fewer than 1 characters',
    );
    expect(await stored()).toBe(before);
  });

  it("should refuse a value the factory refuses, at the door that wrote it", async () => {
    const r = await put("m", { extensions: { lookup: [{ name: "prefix", config: { prefix: "forbidden" } }] } });
    expect(issuesOf(r)[0]).toEqual({
      path: "/document/extensions/lookup/0",
      message: 'extension "prefix" on tool "lookup": the factory refused: this prefix is not allowed',
    });
    expect(await stored()).toBe("[[],[],[]]");
  });

  it("should refuse settings for an extension that accepts none", async () => {
    const r = await put("m", { extensions: { lookup: [{ name: "shout", config: { loud: true } }] } });
    expect(issuesOf(r)[0].message).toContain("accepts no settings");
    expect(issuesOf(r)[0].message).toContain('extension "shout" on tool "lookup"');
    expect(await stored()).toBe("[[],[],[]]");
  });

  it("should refuse a WRAPPER that changes the input schema", async () => {
    const r = await put("m", { extensions: { lookup: ["bad_wrapper"] } });
    expect(issuesOf(r)[0].message).toContain("a WRAPPER must keep the tool's input schema");
    expect(issuesOf(r)[0].message).toContain('extension "bad_wrapper" on tool "lookup"');
    expect(await stored()).toBe("[[],[],[]]");
  });

  it("should refuse an extension from a module the manifest does not list", async () => {
    const r = await put("m", { extensions: { lookup: [{ name: "chain", config: { next: ["lookup"] } }] } });
    expect(issuesOf(r)[0].message).toMatch(/unknown extension "chain"|does not list in extensionsModules/);
    expect(await stored()).toBe("[[],[],[]]");
    const ok = await put("m", {
      extensionsModules: ["tai42/contrib"],
      extensions: { lookup: [{ name: "label", config: { label: "L" } }] },
    });
    expect(ok.errors).toBeUndefined();
  });

  it("should refuse an unloadable extensions module, naming it", async () => {
    const r = await put("m", { extensionsModules: ["./no/such/module.ts"] });
    expect(issuesOf(r)[0]).toMatchObject({ path: "/document/extensionsModules/0" });
    expect(issuesOf(r)[0].message).toContain('"./no/such/module.ts"');
    expect(await stored()).toBe("[[],[],[]]");
  });

  it("should resolve !ENV settings only at bind, refuse a missing variable by name, and serve the marker everywhere", async () => {
    delete process.env.EXT_TEST_PREFIX;
    const missing = await put("m", {
      extensions: { lookup: [{ name: "prefix", config: { prefix: "!ENV EXT_TEST_PREFIX" } }] },
    });
    expect(issuesOf(missing)[0].message).toBe(
      'extension "prefix" on tool "lookup": the environment variable EXT_TEST_PREFIX is not set',
    );
    process.env.EXT_TEST_PREFIX = "sekrit-prefix-123";
    try {
      expect(
        (await put("m", { extensions: { lookup: [{ name: "prefix", config: { prefix: "!ENV EXT_TEST_PREFIX" } }] } }))
          .errors,
      ).toBeUndefined();
      await activate("m");
      const read = await gql(`{ manifest(name: "m") { document } tools { name } }`, {}, admin);
      expect(read.text).toContain("!ENV EXT_TEST_PREFIX");
      const run = await gql(
        `mutation { dispatch(input: { tool: "lookup_prefix", input: { word: "a" } }) { status content { text } } }`,
        {},
        user,
      );
      expect(run.data!.dispatch.status).toBe("SUCCEEDED");
      expect(run.text).not.toContain("sekrit-prefix-123");
      const everything =
        JSON.stringify([await rt.db.manifest.findMany(), await rt.db.run.findMany(), await rt.db.runEvent.findMany()]) +
        rt.logLines.join("\n");
      expect(everything).not.toContain("sekrit-prefix-123");
    } finally {
      delete process.env.EXT_TEST_PREFIX;
    }
  });

  it("should arm a branch's retry only from a declaration on its exact name", async () => {
    app.retryPolicy("lookup", { maxAttempts: 3, idempotent: true });
    await put("m", { extensions: { lookup: ["shout"] } });
    await activate("m");
    const unarmed = await gql(
      `{ tool(name: "lookup_shout") { retryPolicy { maxAttempts } retryExplained } }`,
      {},
      user,
    );
    // Said where users look: the tool listing names the rule and the fix.
    expect(unarmed.data!.tool).toEqual({
      retryPolicy: null,
      retryExplained:
        'one attempt: a branch inherits no retry policy from "lookup" (docs/run-lifecycle.md §3); declare one for "lookup_shout" itself (app.retryPolicy or a manifest\'s retry)',
    });
    expect((await gql(`{ tool(name: "lookup") { retryExplained } }`, {}, user)).data!.tool.retryExplained).toBe(
      'up to 3 attempts: the retry policy declared on "lookup"',
    );
    await put(
      "m",
      { extensions: { lookup: ["shout"] }, retry: { lookup_shout: { maxAttempts: 2, idempotent: true } } },
      1,
    );
    expect(
      (await gql(`{ tool(name: "lookup_shout") { retryPolicy { maxAttempts declaredOn } } }`, {}, user)).data!.tool
        .retryPolicy,
    ).toEqual({
      maxAttempts: 2,
      declaredOn: "lookup_shout",
    });
    expect((await gql(`{ tool(name: "lookup_shout") { retryExplained } }`, {}, user)).data!.tool.retryExplained).toBe(
      'up to 2 attempts: the retry policy declared on "lookup_shout"',
    );
  });

  it("should let a preset build on a branch", async () => {
    await put("m", { extensions: { lookup: ["shout"] } });
    await activate("m");
    const p = await gql(
      `mutation { createPreset(input: { name: "shout_hello", description: "d", baseTool: "lookup_shout", fixedKwargs: { word: "hello" } }) { name tier } }`,
      {},
      user,
    );
    expect(p.errors).toBeUndefined();
    const run = await gql(
      `mutation { dispatch(input: { tool: "shout_hello", input: {} }) { status content { text } } }`,
      {},
      user,
    );
    expect(run.data!.dispatch).toEqual({ status: "SUCCEEDED", content: [{ text: '{"WORD":"HELLO","LENGTH":5}' }] });
  });

  it("should list every loaded extension with its kind, pauses and configSchema in the catalog", async () => {
    const r = await gql(`{ extensions { name kind pauses configSchema module } }`, {}, user);
    const byName = Object.fromEntries(
      (r.data!.extensions as { name: string; configSchema: unknown }[]).map((e) => [e.name, e]),
    );
    expect(byName.monitor).toMatchObject({ kind: "WRAPPER", pauses: false, configSchema: null, module: "builtin" });
    expect(byName.ask_external).toMatchObject({ kind: "TRANSFORMER", pauses: true });
    expect(byName.worker_thread).toMatchObject({ kind: "BACKEND" });
    expect(byName.prefix.configSchema).toMatchObject({ required: ["prefix"] });
  });
});
