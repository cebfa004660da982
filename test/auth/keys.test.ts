import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { loadConfig, type Config } from "../../src/config.ts";
import { DefinitionError } from "../../src/definition-error.ts";
import { buildApp } from "../../src/server/build-app.ts";
import { serve } from "../../src/server/serve.ts";
import { freshDatabase } from "../helpers/databases.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

interface GqlResult {
  data?: Record<string, any> | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

const VIEWER = "{ viewer { role keyName authenticated } }";
const DISPATCH =
  "mutation ($tool: String!, $input: JSONObject!) { dispatch(input: { tool: $tool, input: $input }) { id status errorKind callerRole } }";
const CREATE_KEY = "mutation ($name: String!, $role: Role!) { createApiKey(name: $name, role: $role) }";
const REVOKE_KEY = "mutation ($name: String!) { revokeApiKey(name: $name) }";

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

/** Disposables of the test in progress. */
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
  vi.restoreAllMocks();
});

/** A runtime (one tool per tier besides the demo tools) and its in-process GraphQL app. */
async function setup(
  options: { env?: NodeJS.ProcessEnv; config?: Partial<Config>; kind?: "sqlite" | "postgres" } = {},
) {
  const app = new App();
  const ran = { read: 0, write: 0 };
  app.tool({ name: "probe_read", description: "A read probe.", input: z.object({}) }, () => ++ran.read);
  app.tool(
    { name: "probe_write", description: "A write probe.", input: z.object({}), tier: "write" },
    () => ++ran.write,
  );
  const rt = await testRuntime({ app, env: options.env, config: options.config, kind: options.kind });
  const server = buildApp(rt);
  cleanup.push(
    () => rt.dispose(),
    () => server.stop(),
  );
  const gql = async (query: string, variables: Record<string, unknown> = {}, auth?: string): Promise<GqlResult> => {
    const res = await server.yoga.fetch("http://x/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", ...(auth === undefined ? {} : { authorization: auth }) },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as GqlResult;
  };
  const admin = await rt.keys.create("root", "ADMIN");
  return { rt, server, gql, ran, admin, bearer: (key: string) => `Bearer ${key}` };
}

const codeOf = (r: GqlResult) => r.errors?.[0]?.extensions?.code;

describe("creating keys", () => {
  it("should create random 256-bit keys that differ every time", async () => {
    const { rt } = await setup();
    const a = await rt.keys.create("a", "USER");
    const b = await rt.keys.create("b", "USER");
    for (const k of [a, b]) expect(k).toMatch(/^tai_[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
  });

  it("should show a key once: createApiKey returns it and nothing reads it back", async () => {
    const { rt, gql, admin, bearer } = await setup();
    const created = await gql(CREATE_KEY, { name: "alice", role: "USER" }, bearer(admin));
    const key = created.data!.createApiKey as string;
    expect(key).toMatch(/^tai_/);
    const listed = await rt.keys.list();
    expect(listed.find((k) => k.name === "alice")).toMatchObject({ role: "USER", revokedAt: null });
    expect(JSON.stringify(listed)).not.toContain(key);
    expect(await gql(VIEWER, {}, bearer(key))).toEqual({
      data: { viewer: { role: "USER", keyName: "alice", authenticated: true } },
    });
  });

  it("should store only the SHA-256 of a key: the plain key is in no ApiKey row and nowhere in the database file", async () => {
    // The file check reads SQLite's file, so this test always uses SQLite.
    const { rt, admin } = await setup({ kind: "sqlite" });
    const key = await rt.keys.create("stored", "READER");
    const rows = await rt.db.apiKey.findMany();
    const row = rows.find((r) => r.name === "stored")!;
    expect(row.hash).toBe(sha256(key));
    for (const k of [key, admin]) expect(JSON.stringify(rows)).not.toContain(k);
    const file = rt.config.databaseUrl.slice("file:".length);
    const bytes = Buffer.concat([file, `${file}-wal`].filter(existsSync).map((f) => readFileSync(f)));
    expect(bytes.includes(Buffer.from(sha256(key))), "the hash is on disk").toBe(true);
    for (const k of [key, admin]) expect(bytes.includes(Buffer.from(k)), "a plain key is on disk").toBe(false);
  });

  it("should refuse a duplicate key name with CONFLICT and a bad name with BAD_USER_INPUT", async () => {
    const { gql, admin, bearer } = await setup();
    expect(codeOf(await gql(CREATE_KEY, { name: "root", role: "USER" }, bearer(admin)))).toBe("CONFLICT");
    expect(codeOf(await gql(CREATE_KEY, { name: "no spaces", role: "USER" }, bearer(admin)))).toBe("BAD_USER_INPUT");
  });
});

describe("managing keys is admin-only", () => {
  it("should refuse createApiKey to USER and READER keys with FORBIDDEN and create nothing", async () => {
    const { rt, gql, bearer } = await setup();
    for (const role of ["USER", "READER"] as const) {
      const key = await rt.keys.create(`k-${role}`, role);
      const res = await gql(CREATE_KEY, { name: `made-by-${role}`, role: "ADMIN" }, bearer(key));
      expect(codeOf(res)).toBe("FORBIDDEN");
      expect(res.errors![0].message).toContain(role);
    }
    expect((await rt.keys.list()).map((k) => k.name)).toEqual(["root", "k-USER", "k-READER"]);
  });

  it("should refuse createApiKey to an anonymous USER caller with FORBIDDEN", async () => {
    const { gql } = await setup();
    expect(codeOf(await gql(CREATE_KEY, { name: "anon", role: "ADMIN" }))).toBe("FORBIDDEN");
  });

  it("should refuse revokeApiKey to a USER key with FORBIDDEN and leave the key working", async () => {
    const { rt, gql, bearer } = await setup();
    const user = await rt.keys.create("user", "USER");
    expect(codeOf(await gql(REVOKE_KEY, { name: "root" }, bearer(user)))).toBe("FORBIDDEN");
    expect(codeOf(await gql(REVOKE_KEY, { name: "user" }, bearer(user)))).toBe("FORBIDDEN");
    expect((await gql(VIEWER, {}, bearer(user))).data!.viewer.role).toBe("USER");
    expect((await rt.keys.list()).every((k) => k.revokedAt === null)).toBe(true);
  });

  it("should let an ADMIN revoke a key, and answer NOT_FOUND for a key that is unknown or already revoked", async () => {
    const { rt, gql, admin, bearer } = await setup();
    await rt.keys.create("victim", "USER");
    expect(await gql(REVOKE_KEY, { name: "victim" }, bearer(admin))).toEqual({ data: { revokeApiKey: true } });
    expect(codeOf(await gql(REVOKE_KEY, { name: "victim" }, bearer(admin)))).toBe("NOT_FOUND");
    expect(codeOf(await gql(REVOKE_KEY, { name: "ghost" }, bearer(admin)))).toBe("NOT_FOUND");
  });
});

describe("authenticating a request", () => {
  it("should refuse a revoked key with UNAUTHENTICATED, even one verified just before", async () => {
    const { rt, gql, admin, bearer } = await setup();
    const key = await rt.keys.create("soon-gone", "USER");
    expect((await gql(VIEWER, {}, bearer(key))).data!.viewer.keyName).toBe("soon-gone");
    await gql(REVOKE_KEY, { name: "soon-gone" }, bearer(admin));
    const viewer = await gql(VIEWER, {}, bearer(key));
    expect(codeOf(viewer)).toBe("UNAUTHENTICATED");
    expect(viewer.data ?? null).toBeNull();
    const runsBefore = await rt.db.run.count();
    expect(codeOf(await gql(DISPATCH, { tool: "probe_read", input: {} }, bearer(key)))).toBe("UNAUTHENTICATED");
    expect(await rt.db.run.count()).toBe(runsBefore);
  });

  it("should never fall back to the anonymous role for an unknown key", async () => {
    const { rt, gql, ran, bearer } = await setup();
    expect(rt.config.anonymousRole).toBe("USER");
    for (const auth of [
      bearer(`tai_${"x".repeat(43)}`),
      bearer("not-a-key"),
      "Basic dXNlcjpwYXNz",
      "Bearer",
      "Bearer a b",
    ]) {
      expect(codeOf(await gql(VIEWER, {}, auth)), auth).toBe("UNAUTHENTICATED");
      expect(codeOf(await gql(DISPATCH, { tool: "probe_read", input: {} }, auth)), auth).toBe("UNAUTHENTICATED");
    }
    expect(ran.read).toBe(0);
    expect(await rt.db.run.count()).toBe(0);
  });

  it("should refuse a key revoked by another process (the CLI) within seconds, without a shared bus", async () => {
    const { rt, gql, bearer } = await setup();
    const key = await rt.keys.create("elsewhere", "USER");
    expect((await gql(VIEWER, {}, bearer(key))).data!.viewer.role).toBe("USER");
    const cli = await testRuntime({ databaseUrl: rt.config.databaseUrl });
    cleanup.push(() => cli.close());
    await cli.keys.revoke("elsewhere");
    const now = Date.now();
    vi.spyOn(Date, "now").mockReturnValue(now + 60_000);
    expect(codeOf(await gql(VIEWER, {}, bearer(key)))).toBe("UNAUTHENTICATED");
  });

  it("should report the caller's role and key name through viewer", async () => {
    const { rt, gql, bearer } = await setup();
    const key = await rt.keys.create("reader-1", "READER");
    expect(await gql(VIEWER, {}, bearer(key))).toEqual({
      data: { viewer: { role: "READER", keyName: "reader-1", authenticated: true } },
    });
    expect(await gql(VIEWER)).toEqual({ data: { viewer: { role: "USER", keyName: null, authenticated: false } } });
  });
});

describe("the anonymous role", () => {
  it("should default to USER on a loopback HOST and to NONE on any other bind", () => {
    for (const host of [undefined, "127.0.0.1", "127.0.0.2", "::1", "localhost"])
      expect(loadConfig({ HOST: host }).anonymousRole, host).toBe("USER");
    for (const host of ["0.0.0.0", "::", "192.168.1.20", "example.com"])
      expect(loadConfig({ HOST: host }).anonymousRole, host).toBe("NONE");
  });

  it("should take TAI_ANONYMOUS_ROLE over the default and refuse an unknown role naming the variable", () => {
    expect(loadConfig({ HOST: "0.0.0.0", TAI_ANONYMOUS_ROLE: "reader" }).anonymousRole).toBe("READER");
    expect(loadConfig({ TAI_ANONYMOUS_ROLE: "NONE" }).anonymousRole).toBe("NONE");
    expect(() => loadConfig({ TAI_ANONYMOUS_ROLE: "root" })).toThrow(DefinitionError);
    expect(() => loadConfig({ TAI_ANONYMOUS_ROLE: "root" })).toThrow(/TAI_ANONYMOUS_ROLE/);
  });

  it("should answer UNAUTHENTICATED on tools and dispatch when the anonymous role is NONE, and record no run", async () => {
    const { rt, gql, ran, admin, bearer } = await setup({ env: { HOST: "0.0.0.0" } });
    expect(rt.config.anonymousRole).toBe("NONE");
    expect(codeOf(await gql("{ tools { name } }"))).toBe("UNAUTHENTICATED");
    expect(codeOf(await gql(DISPATCH, { tool: "probe_read", input: {} }))).toBe("UNAUTHENTICATED");
    expect(codeOf(await gql(CREATE_KEY, { name: "x", role: "ADMIN" }))).toBe("UNAUTHENTICATED");
    expect(await gql(VIEWER)).toEqual({ data: { viewer: { role: null, keyName: null, authenticated: false } } });
    expect(ran.read).toBe(0);
    expect(await rt.db.run.count()).toBe(0);
    expect((await gql(DISPATCH, { tool: "probe_read", input: {} }, bearer(admin))).data!.dispatch.status).toBe(
      "SUCCEEDED",
    );
  });

  it("should hold an anonymous READER to the read tier", async () => {
    const { gql, ran } = await setup({ config: { anonymousRole: "READER" } });
    expect((await gql(DISPATCH, { tool: "probe_read", input: {} })).data!.dispatch).toMatchObject({
      status: "SUCCEEDED",
      callerRole: "READER",
    });
    expect((await gql(DISPATCH, { tool: "probe_write", input: {} })).data!.dispatch).toMatchObject({
      status: "FAILED",
      errorKind: "PERMISSION_DENIED",
    });
    expect(ran).toEqual({ read: 1, write: 0 });
  });
});

describe("the first-start admin key", () => {
  it("should create exactly one admin key on first start and none on the next", async () => {
    const rt: TestRuntime = await testRuntime();
    cleanup.push(() => rt.dispose());
    const first = await rt.keys.bootstrap();
    expect(first).toMatch(/^tai_/);
    expect(await rt.keys.verify(first!)).toMatchObject({ role: "ADMIN", keyName: "admin" });
    expect(await rt.keys.bootstrap()).toBeNull();
    expect(await rt.keys.list()).toEqual([expect.objectContaining({ name: "admin", role: "ADMIN", revokedAt: null })]);
  });

  it("should not create an admin key when one exists already", async () => {
    const rt: TestRuntime = await testRuntime();
    cleanup.push(() => rt.dispose());
    await rt.keys.create("ops", "ADMIN");
    expect(await rt.keys.bootstrap()).toBeNull();
    expect((await rt.keys.list()).map((k) => k.name)).toEqual(["ops"]);
  });

  it("should create one admin key when two instances start together on one database", async () => {
    const a: TestRuntime = await testRuntime();
    const b = await testRuntime({ databaseUrl: a.config.databaseUrl });
    cleanup.push(
      () => a.dispose(),
      () => b.close(),
    );
    const results = await Promise.all([a.keys.bootstrap(), b.keys.bootstrap()]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await a.keys.list()).toHaveLength(1);
  });

  it("should store TAI_ADMIN_KEY once when two instances start together with it", async () => {
    const a: TestRuntime = await testRuntime();
    const b = await testRuntime({ databaseUrl: a.config.databaseUrl });
    cleanup.push(
      () => a.dispose(),
      () => b.close(),
    );
    const given = "operator-chosen-admin-key-for-two";
    expect(await Promise.all([a.keys.bootstrap(given), b.keys.bootstrap(given)])).toEqual([null, null]);
    expect(await a.keys.list()).toHaveLength(1);
    expect(await b.keys.verify(given)).toMatchObject({ role: "ADMIN" });
  });

  it("should accept TAI_ADMIN_KEY as given, store it hashed, and not add it twice", async () => {
    const rt: TestRuntime = await testRuntime();
    cleanup.push(() => rt.dispose());
    const given = "operator-chosen-admin-key-0123456789";
    expect(await rt.keys.bootstrap(given)).toBeNull();
    expect(await rt.keys.verify(given)).toMatchObject({ role: "ADMIN", keyName: "bootstrap-admin" });
    expect(await rt.keys.bootstrap(given)).toBeNull();
    const rows = await rt.db.apiKey.findMany();
    expect(rows).toHaveLength(1);
    expect(rows[0].hash).toBe(sha256(given));
    expect(JSON.stringify(rows)).not.toContain(given);
  });

  it("should refuse a TAI_ADMIN_KEY shorter than 16 characters, naming the variable", () => {
    expect(() => loadConfig({ TAI_ADMIN_KEY: "short" })).toThrow(/TAI_ADMIN_KEY/);
  });

  it("should print-once through serve: a first start returns the admin key, a restart returns none", async () => {
    const { url: databaseUrl } = await freshDatabase("sqlite");
    const config = { ...loadConfig({}), databaseUrl, port: 0 };
    const first = await serve(config);
    await first.stop();
    expect(first.firstAdminKey).toMatch(/^tai_/);
    const second = await serve(config);
    cleanup.push(() => second.stop());
    expect(second.firstAdminKey).toBeNull();
    const res = await fetch(second.url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${first.firstAdminKey}` },
      body: JSON.stringify({ query: VIEWER }),
    });
    expect(await res.json()).toEqual({ data: { viewer: { role: "ADMIN", keyName: "admin", authenticated: true } } });
  });

  it("should serve with TAI_ADMIN_KEY as an ADMIN key and print no generated key", async () => {
    const { url: databaseUrl } = await freshDatabase("sqlite");
    const given = "operator-chosen-admin-key-for-serve";
    const s = await serve({ ...loadConfig({ TAI_ADMIN_KEY: given }), databaseUrl, port: 0 });
    cleanup.push(() => s.stop());
    expect(s.firstAdminKey).toBeNull();
    expect(await s.runtime.keys.verify(given)).toMatchObject({ role: "ADMIN" });
    expect(await s.runtime.keys.list()).toHaveLength(1);
  });
});
