import { afterEach, describe, expect, it, vi } from "vitest";
import { LAST_USED_EVERY_MS } from "../../src/auth/keys.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { collect, gql, until, wsClient } from "../graphql/support.ts";
import { handshake } from "../security/edge-support.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const VIEWER = "{ viewer { role keyName } }";
const CREATE =
  "mutation ($name: String!, $role: Role!, $expiresAt: DateTime, $scope: JSONObject) { createApiKey(name: $name, role: $role, expiresAt: $expiresAt, scope: $scope) }";
const KEYS = "{ apiKeys { name expiresAt lastUsedAt scope } }";

let rt: TestRuntime | undefined;
let server: TaiServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.stop();
  await rt?.dispose();
  server = rt = undefined;
});

async function setup(listen = false) {
  rt = await testRuntime({ env: { TAI_ANONYMOUS_ROLE: "NONE" } });
  server = buildApp(rt);
  const url = listen ? await server.start(0, "127.0.0.1") : "";
  const admin = await rt.keys.create("root", "ADMIN");
  const as = (key: string, query: string, variables?: Record<string, unknown>) =>
    gql(server!, query, { variables, headers: { authorization: `Bearer ${key}` } });
  return { rt, server, url, admin, as };
}

/** A key that expires `ms` from now. */
const expiringIn = (r: TestRuntime, name: string, ms: number) =>
  r.keys.create(name, "USER", undefined, undefined, { expiresAt: new Date(Date.now() + ms) });

describe("a key's expiry", () => {
  it("should accept a key until its expiry, then refuse it UNAUTHENTICATED saying it has expired", async () => {
    const { rt, as } = await setup();
    const key = await expiringIn(rt, "short", 1500);
    expect((await as(key, VIEWER)).body.data).toEqual({ viewer: { role: "USER", keyName: "short" } });
    await until("the key to expire", async () => (await as(key, VIEWER)).body.errors !== undefined);
    const refused = await as(key, VIEWER);
    expect(refused.body.errors?.[0]).toMatchObject({
      message: "the API key has expired",
      extensions: { code: "UNAUTHENTICATED" },
    });
    expect(await rt.keys.verify(key)).toBeNull();
    // A revoked key is still told apart from an expired one by nothing but the message.
    const revoked = await rt.keys.create("gone", "USER");
    await rt.keys.revoke("gone");
    expect((await as(revoked, VIEWER)).body.errors?.[0]).toMatchObject({
      message: "the API key is unknown or revoked",
      extensions: { code: "UNAUTHENTICATED" },
    });
  });

  it("should refuse an expired key's graphql-ws connection with 4403 saying it has expired", async () => {
    const { rt, url } = await setup(true);
    const key = await expiringIn(rt, "short", 60_000);
    await rt.db.apiKey.update({ where: { name: "short" }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await handshake(url, { authorization: `Bearer ${key}` })).toEqual({
      closed: 4403,
      reason: "Forbidden: the API key has expired",
    });
  });

  it("should end an open subscription of a key when it expires", async () => {
    const { rt, url } = await setup(true);
    const key = await expiringIn(rt, "watcher", 1500);
    const client = wsClient(url, { connectionParams: { authorization: `Bearer ${key}` } });
    const closed = new Promise<number>((resolve) => client.on("closed", (e) => resolve((e as { code: number }).code)));
    const connected = new Promise<void>((resolve) => client.on("connected", () => resolve()));
    const sub = collect(client, "subscription { toolsChanged { name } }");
    await connected;
    expect(await closed).toBe(4403);
    await sub.waitForEnd();
    await client.dispose();
  }, 20_000);

  it("should refuse an expiry in the past with BAD_USER_INPUT and store nothing", async () => {
    const { rt, admin, as } = await setup();
    const res = await as(admin, CREATE, { name: "late", role: "USER", expiresAt: "2020-01-01T00:00:00Z" });
    expect(res.body.errors?.[0]).toMatchObject({
      message: 'the expiry of key "late" must be a date-time in the future',
      extensions: { code: "BAD_USER_INPUT" },
    });
    expect(await rt.db.apiKey.count({ where: { name: "late" } })).toBe(0);
  });

  it("should list a key's expiry, last use and scope to an admin", async () => {
    const { admin, as } = await setup();
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const created = await as(admin, CREATE, { name: "scoped", role: "USER", expiresAt, scope: { tools: ["echo"] } });
    expect(created.body.errors).toBeUndefined();
    const listed = (await as(admin, KEYS)).body.data as { apiKeys: Record<string, unknown>[] };
    expect(listed.apiKeys.find((k) => k.name === "scoped")).toEqual({
      name: "scoped",
      expiresAt,
      lastUsedAt: null,
      scope: { tools: ["echo"] },
    });
    expect(JSON.stringify(listed)).not.toContain(created.body.data!.createApiKey as string);
  });
});

describe("a key's last use", () => {
  const lastUsed = async (r: TestRuntime, name: string) =>
    (await r.db.apiKey.findUniqueOrThrow({ where: { name } })).lastUsedAt;

  it("should record when a key was last used, and not rewrite it within the minute", async () => {
    const { rt, as } = await setup();
    const key = await rt.keys.create("user", "USER");
    expect(await lastUsed(rt, "user")).toBeNull();
    const before = Date.now();
    await as(key, VIEWER);
    await until("lastUsedAt to be written", async () => (await lastUsed(rt, "user")) !== null);
    expect((await lastUsed(rt, "user"))!.getTime()).toBeGreaterThanOrEqual(before - 1000);
    // Within the minute, calls write nothing: the decision is taken as the key is verified, before the answer.
    const writes = vi.spyOn(rt.db.apiKey, "updateMany");
    for (let i = 0; i < 3; i++) expect((await as(key, VIEWER)).status).toBe(200);
    expect(writes).not.toHaveBeenCalled();
    const first = await lastUsed(rt, "user");
    // A minute later, the next call writes it again.
    const now = Date.now();
    const clock = vi.spyOn(Date, "now").mockReturnValue(now + LAST_USED_EVERY_MS + 1);
    expect((await as(key, VIEWER)).status).toBe(200);
    clock.mockRestore();
    expect(writes).toHaveBeenCalledTimes(1);
    await until("lastUsedAt to be written again", async () => (await lastUsed(rt, "user"))! > first!);
  });

  it("should answer a call whose last-use write fails, logging the failure", async () => {
    const { rt, as } = await setup();
    const key = await rt.keys.create("user", "USER");
    const failing = vi
      .spyOn(rt.db.apiKey, "updateMany")
      .mockImplementation((() => Promise.reject(new Error("database is locked"))) as never);
    expect((await as(key, VIEWER)).body.data).toEqual({ viewer: { role: "USER", keyName: "user" } });
    await until("the failure to be logged", () =>
      rt.logLines.some((l) => l.includes("recording an API key's last use failed")),
    );
    expect(failing).toHaveBeenCalledTimes(1);
  });
});
