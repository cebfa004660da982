import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { collect, until, wsClient } from "../graphql/support.ts";

const LABEL = "finding3-label-secret-99aa88";
const CACHED = "finding3-cached-secret-77bb66";

describe("finding 3: contrib extensions never serve or store a resolved !ENV value", () => {
  let rt: TestRuntime;
  let server: TaiServer;
  let url: string;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;
  beforeEach(async () => {
    process.env.EXT_FINDING3_LABEL = LABEL;
    process.env.EXT_FINDING3_CACHED = CACHED;
    rt = await testRuntime();
    server = buildApp(rt);
    url = await server.start(0, "127.0.0.1");
    gql = gqlClient(rt);
    admin = await rt.keys.create("admin", "ADMIN");
  });
  afterEach(async () => {
    delete process.env.EXT_FINDING3_LABEL;
    delete process.env.EXT_FINDING3_CACHED;
    await server.stop();
    await rt.dispose();
  });

  it("should serve the label branch's label as [redacted] in tools and in every toolsChanged frame", async () => {
    const client = wsClient(url, { connectionParams: { authorization: `Bearer ${admin}` } });
    const frames = collect<{ toolsChanged: { name: string; label: string | null }[] }>(
      client,
      "subscription { toolsChanged { name label } }",
    );
    await until("the subscription to listen", () => rt.bus.listenerCount("toolsChanged") >= 1);
    const document = {
      extensionsModules: ["tai42/contrib"],
      extensions: { echo: [[{ name: "label", config: { label: "!ENV EXT_FINDING3_LABEL" } }]] },
    };
    expect(
      (
        await gql(
          `mutation($i: ManifestInput!) { putManifest(input: $i) { name } }`,
          { i: { name: "m", document } },
          admin,
        )
      ).errors,
    ).toBeUndefined();
    expect((await gql(`mutation { activateManifest(name: "m") { name } }`, {}, admin)).errors).toBeUndefined();
    await until("a toolsChanged frame with the branch", () =>
      frames.data.some((f) => f.toolsChanged.some((t) => t.name === "echo_label")),
    );
    const tools = await gql(`{ tools { name label } tool(name: "echo_label") { label } }`, {}, admin);
    expect(tools.data!.tool.label).toBe("[redacted]");
    const ran = await gql(
      `mutation { dispatch(input: { tool: "echo_label", input: { text: "hi" } }) { status details } }`,
      {},
      admin,
    );
    expect(ran.data!.dispatch).toEqual({ status: "SUCCEEDED", details: { label: "[redacted]" } });
    frames.stop();
    await client.dispose();
    expect(JSON.stringify([tools.text, ran.text, frames.data])).not.toContain(LABEL);
    expect(JSON.stringify([await rt.db.run.findMany(), await rt.db.runEvent.findMany()])).not.toContain(LABEL);
  });

  it("should store a cached result holding a secret scrubbed", async () => {
    await gql(
      `mutation { createPreset(input: { name: "echo_secret", description: "x", baseTool: "echo", fixedKwargs: { text: "!ENV EXT_FINDING3_CACHED" } }) { name } }`,
      {},
      admin,
    );
    const document = {
      extensionsModules: ["tai42/contrib"],
      extensions: { echo_secret: [[{ name: "cache", config: { ttlSeconds: 60 } }]] },
    };
    expect(
      (
        await gql(
          `mutation($i: ManifestInput!) { putManifest(input: $i) { name } }`,
          { i: { name: "c", document } },
          admin,
        )
      ).errors,
    ).toBeUndefined();
    expect((await gql(`mutation { activateManifest(name: "c") { name } }`, {}, admin)).errors).toBeUndefined();
    for (let i = 0; i < 2; i++) {
      const r = await gql(
        `mutation { dispatch(input: { tool: "echo_secret_cache", input: {} }) { status content { text } } }`,
        {},
        admin,
      );
      expect(r.data!.dispatch).toEqual({ status: "SUCCEEDED", content: [{ text: "[redacted]" }] });
    }
    const entries = await rt.db.cacheEntry.findMany();
    expect(entries.length).toBe(1);
    expect(JSON.stringify(entries)).not.toContain(CACHED);
  });
});
