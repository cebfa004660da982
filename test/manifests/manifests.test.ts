import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { until } from "../graphql/support.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const M = "name version active description document";

describe("manifests", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;
  let user: string;

  beforeEach(async () => {
    const app = new App();
    app.tool(
      { name: "search_web", description: "Search.", input: z.object({ q: z.string() }) },
      ({ q }) => `results for ${q}`,
    );
    app.tool(
      { name: "search_docs", description: "Search docs.", input: z.object({ q: z.string() }) },
      ({ q }) => `docs for ${q}`,
    );
    app.tool({ name: "delete_all", description: "Dangerous.", input: z.object({}), tier: "write" }, () => "deleted");
    rt = await testRuntime({ app, config: { demo: false, extensionsDir: "does" } });
    gql = gqlClient(rt);
    admin = await rt.keys.create("admin", "ADMIN");
    user = await rt.keys.create("user", "USER");
  });
  afterEach(() => rt.dispose());

  const put = (input: Record<string, unknown>, expectedVersion?: number, key = admin) =>
    gql(
      `mutation($input: ManifestInput!, $v: Int) { putManifest(input: $input, expectedVersion: $v) { ${M} } }`,
      { input, v: expectedVersion ?? null },
      key,
    );
  const stored = async () =>
    JSON.stringify([
      await rt.db.manifest.findMany({ orderBy: { name: "asc" } }),
      await rt.db.manifestVersion.findMany({ orderBy: { id: "asc" } }),
    ]);
  const toolNames = async () =>
    ((await gql(`{ tools(origin: TOOL) { name } }`, {}, user)).data!.tools as { name: string }[]).map((t) => t.name);

  it("should store a manifest at version 1 and keep every version in its history", async () => {
    const a = await put({ name: "prod", description: "v1", document: { tools: { include: ["search_*"] } } });
    expect(a.data!.putManifest).toMatchObject({ name: "prod", version: 1, active: false });
    const b = await put({ name: "prod", description: "v2", document: { tools: { exclude: ["delete_all"] } } }, 1);
    expect(b.data!.putManifest.version).toBe(2);
    const h = await gql(`{ manifest(name: "prod") { history { version description document } } }`, {}, user);
    expect(h.data!.manifest.history).toEqual([
      { version: 1, description: "v1", document: { tools: { include: ["search_*"] } } },
      { version: 2, description: "v2", document: { tools: { exclude: ["delete_all"] } } },
    ]);
  });

  it("should change the surface atomically on activation and rebuild it from the active manifest on start", async () => {
    await put({ name: "search-only", document: { tools: { include: ["search_*"] } } });
    expect(await toolNames()).toEqual(["delete_all", "search_docs", "search_web"]);
    const act = await gql(`mutation { activateManifest(name: "search-only") { active } }`, {}, admin);
    expect(act.data!.activateManifest.active).toBe(true);
    expect(await toolNames()).toEqual(["search_docs", "search_web"]);
    const denied = await gql(
      `mutation { dispatch(input: { tool: "delete_all", input: {} }) { status errorKind } }`,
      {},
      user,
    );
    expect(denied.data!.dispatch).toEqual({ status: "FAILED", errorKind: "NOT_FOUND" });
    expect((await gql(`{ activeManifest { name } }`, {}, user)).data!.activeManifest).toEqual({ name: "search-only" });

    const again = await testRuntime({
      app: rt.app,
      databaseUrl: rt.config.databaseUrl,
      config: { demo: false, extensionsDir: "does" },
    });
    try {
      expect(again.surface.list({ origin: "TOOL" }).map((e) => e.name)).toEqual(["search_docs", "search_web"]);
    } finally {
      await again.close();
    }
  });

  it("should apply the manifest's retry declarations by exact name", async () => {
    await put({
      name: "m",
      document: { retry: { search_web: { maxAttempts: 2, idempotent: true, retryable: ["UPSTREAM"] } } },
    });
    await gql(`mutation { activateManifest(name: "m") { name } }`, {}, admin);
    const r = await gql(
      `{ tool(name: "search_web") { retryPolicy { maxAttempts retryableKinds declaredOn } } }`,
      {},
      user,
    );
    expect(r.data!.tool.retryPolicy).toEqual({
      maxAttempts: 2,
      retryableKinds: ["UPSTREAM"],
      declaredOn: "search_web",
    });
  });

  it("should publish the new surface to a toolsChanged subscriber when a manifest is activated", async () => {
    await put({ name: "narrow", document: { tools: { include: ["search_web"] } } });
    const server: TaiServer = buildApp(rt);
    const url = await server.start(0, "127.0.0.1");
    const client = createClient({
      url: url.replace("http", "ws"),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${user}` },
      retryAttempts: 0,
    });
    try {
      const listening = rt.bus.listenerCount("toolsChanged");
      const received = new Promise<string[]>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no toolsChanged within 10 s")), 10_000);
        client.subscribe<{ toolsChanged: { name: string }[] }>(
          { query: "subscription { toolsChanged { name } }" },
          {
            next: (m) => {
              clearTimeout(timer);
              resolve(m.data!.toolsChanged.map((t) => t.name));
            },
            error: reject,
            complete: () => {},
          },
        );
      });
      await until("the subscription to listen on the bus", () => rt.bus.listenerCount("toolsChanged") > listening);
      await gql(`mutation { activateManifest(name: "narrow") { name } }`, {}, admin);
      expect(await received).toEqual(["search_web"]);
    } finally {
      await client.dispose();
      await server.stop();
    }
  });

  describe("refused writes leave stored data unchanged", () => {
    it("should refuse unknown tools, extensions, modules and retry targets, naming each item", async () => {
      const r = await put({
        name: "bad",
        document: {
          tools: { include: ["search_web", "nope"] },
          extensions: { search_web: ["no_such_ext"], ghost: ["monitor"] },
          extensionsModules: ["./does/not/exist.ts"],
          retry: { phantom: { maxAttempts: 1, idempotent: false } },
        },
      });
      expect(r.errors![0].extensions!.code).toBe("BAD_USER_INPUT");
      const issues = r.errors![0].extensions!.issues!;
      expect(issues).toEqual(
        expect.arrayContaining([
          { path: "/document/tools/include/1", message: 'unknown tool "nope"' },
          {
            path: "/document/extensions/search_web/0/0",
            message: 'unknown extension "no_such_ext" (is its module listed in extensionsModules?)',
          },
          { path: "/document/extensions/ghost", message: 'unknown tool "ghost"' },
          {
            path: "/document/extensionsModules/0",
            message: 'failed to load module "./does/not/exist.ts": file not found',
          },
          { path: "/document/retry/phantom", message: 'unknown tool, preset or branch "phantom"' },
        ]),
      );
      expect(await stored()).toBe("[[],[]]");
    });

    it("should refuse an unknown document field and a wrongly shaped extensions map", async () => {
      const r = await put({ name: "bad", document: { tool: [], extensions: { search_web: "monitor" } } });
      expect(r.errors![0].extensions!.issues!.map((i) => i.path)).toEqual(
        expect.arrayContaining(["/document/tool", "/document/extensions/search_web"]),
      );
      expect(await stored()).toBe("[[],[]]");
    });

    it("should refuse a stale or missing expectedVersion with CONFLICT", async () => {
      await put({ name: "m", document: {} });
      await put({ name: "m", document: { tools: { include: ["*"] } } }, 1);
      const before = await stored();
      const stale = await put({ name: "m", document: {} }, 1);
      expect(stale.errors![0].extensions).toMatchObject({
        code: "CONFLICT",
        issues: [{ path: "/expectedVersion", message: "is stale (current 2)" }],
      });
      const missing = await put({ name: "m", document: {} });
      expect(missing.errors![0].extensions!.code).toBe("CONFLICT");
      expect(await stored()).toBe(before);
    });

    it("should refuse writes, activation and deletion by a non-admin with FORBIDDEN", async () => {
      await put({ name: "m", document: {} });
      const before = await stored();
      expect((await put({ name: "m2", document: {} }, undefined, user)).errors![0].extensions!.code).toBe("FORBIDDEN");
      expect(
        (await gql(`mutation { activateManifest(name: "m") { name } }`, {}, user)).errors![0].extensions!.code,
      ).toBe("FORBIDDEN");
      expect((await gql(`mutation { deleteManifest(name: "m") }`, {}, user)).errors![0].extensions!.code).toBe(
        "FORBIDDEN",
      );
      expect(await stored()).toBe(before);
    });

    it("should refuse deleting the active manifest and allow deleting another", async () => {
      await put({ name: "a", document: {} });
      await put({ name: "b", document: {} });
      await gql(`mutation { activateManifest(name: "a") { name } }`, {}, admin);
      const r = await gql(`mutation { deleteManifest(name: "a") }`, {}, admin);
      expect(r.errors![0].extensions!.code).toBe("CONFLICT");
      expect((await gql(`mutation { deleteManifest(name: "b") }`, {}, admin)).data).toEqual({ deleteManifest: true });
      expect((await gql(`{ manifests { name active } }`, {}, admin)).data!.manifests).toEqual([
        { name: "a", active: true },
      ]);
    });
  });
});
