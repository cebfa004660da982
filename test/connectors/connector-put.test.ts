import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import { readSurfaceVersion } from "../../src/registry/surface-version.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { fakeKinds } from "../fixtures/connector-kinds.ts";
import { ApiError } from "../../src/errors.ts";

const fake = fakeKinds("fake");
let rt: TestRuntime;

beforeAll(async () => {
  const app = new App();
  app.plugin({ name: "fake-kinds", connectors: { fake: fake.kind } });
  process.env.FAKE_TOKEN = "tok-4d1b9e-secret";
  rt = await testRuntime({ app });
}, 120_000);
afterAll(async () => rt?.dispose());

const refusal = async (p: Promise<unknown>): Promise<ApiError> => {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
};

describe("putting a connector", () => {
  it("stores it, bumps the surface version and serves its tools as CONNECTOR entries", async () => {
    const before = await readSurfaceVersion(rt.db);
    const { connector, change } = await rt.connectors.put(as("ADMIN"), {
      name: "acme",
      kind: "fake",
      settings: { upstream: "acme", token: "!ENV FAKE_TOKEN" },
    });
    expect(connector.version).toBe(1);
    expect(connector.listingVersion).toBe(1);
    expect(connector.tools.map((t) => [t.surfaceName, t.tier, t.tierAssigned])).toEqual([
      ["acme_echo", "read", false],
      ["acme_write_thing", "write", false],
    ]);
    expect(change?.diff.added).toEqual(["acme_echo", "acme_write_thing"]);
    expect(change?.cause).toBe("PUT");
    expect(connector.health.state).toBe("CONNECTED");
    expect(await readSurfaceVersion(rt.db)).toBeGreaterThan(before);
    const entry = rt.surface.resolve("acme_echo");
    expect(entry).toMatchObject({
      origin: "CONNECTOR",
      connector: "acme",
      tier: "read",
      timeoutSeconds: 30,
      annotations: { readOnlyHint: true },
    });
    expect(fake.upstream("acme").lastSettings?.token).toBe("tok-4d1b9e-secret");
    expect(connector.settings.token).toBe("!ENV FAKE_TOKEN");
  });

  it("runs a connector tool through the chokepoint with the run id as its idempotency key", async () => {
    const run = await rt.dispatcher.run({
      tool: "acme_echo",
      input: { text: "hi" },
      caller: as("READER"),
      door: "runtime",
    });
    expect(run.status).toBe("SUCCEEDED");
    const call = fake.upstream("acme").calls.at(-1)!;
    expect(call).toMatchObject({ tool: "echo", input: { text: "hi" }, idempotencyKey: run.id, idempotent: false });
  });

  it("forwards the caller's idempotency key to the upstream", async () => {
    const run = await rt.dispatcher.run({
      tool: "acme_echo",
      input: { text: "k" },
      caller: as("USER"),
      door: "runtime",
      idempotencyKey: "caller-key-1",
    });
    expect(run.status).toBe("SUCCEEDED");
    expect(fake.upstream("acme").calls.at(-1)?.idempotencyKey).toBe("caller-key-1");
  });

  it("refuses a READER a write tool without calling the upstream", async () => {
    const calls = fake.upstream("acme").calls.length;
    const run = await rt.dispatcher.run({
      tool: "acme_write_thing",
      input: { text: "x" },
      caller: as("READER"),
      door: "runtime",
    });
    expect(run.status).toBe("FAILED");
    expect(run.errorKind).toBe("PERMISSION_DENIED");
    expect(fake.upstream("acme").calls.length).toBe(calls);
  });

  it("refuses every non-ADMIN caller every method, reading nothing", async () => {
    for (const role of ["READER", "USER"] as const) {
      expect((await refusal(rt.connectors.list(as(role)))).code).toBe("FORBIDDEN");
      expect((await refusal(rt.connectors.get(as(role), "acme"))).code).toBe("FORBIDDEN");
      expect(
        (await refusal(rt.connectors.put(as(role), { name: "x", kind: "fake", settings: { upstream: "x" } }))).code,
      ).toBe("FORBIDDEN");
      expect((await refusal(rt.connectors.delete(as(role), "acme"))).code).toBe("FORBIDDEN");
      expect((await refusal(rt.connectors.changes(as(role), "acme"))).code).toBe("FORBIDDEN");
    }
    expect(fake.upstreams.has("x")).toBe(false);
  });

  it("refuses a create over a taken name and a stale expectedVersion, naming both versions", async () => {
    expect(
      (await refusal(rt.connectors.put(as("ADMIN"), { name: "acme", kind: "fake", settings: { upstream: "acme" } })))
        .code,
    ).toBe("CONFLICT");
    const stale = await refusal(
      rt.connectors.put(as("ADMIN"), { name: "acme", kind: "fake", settings: { upstream: "acme" } }, 7),
    );
    expect(stale.code).toBe("CONFLICT");
    expect(stale.message).toMatch(/version 1, not the expected 7/);
  });

  it("applies the ADMIN's tier, timeout and enabled decisions on a replace", async () => {
    const { connector, change } = await rt.connectors.put(
      as("ADMIN"),
      {
        name: "acme",
        kind: "fake",
        settings: { upstream: "acme", token: "!ENV FAKE_TOKEN" },
        tools: { echo: { tier: "fenced", timeoutSeconds: 5 }, write_thing: { enabled: false } },
      },
      1,
    );
    expect(connector.version).toBe(2);
    expect(change).toBeNull();
    expect(rt.surface.resolve("acme_echo")).toMatchObject({ tier: "fenced", timeoutSeconds: 5 });
    expect(rt.surface.resolve("acme_write_thing")).toBeUndefined();
    expect(rt.surface.base("acme_write_thing")?.listed).toBe(false);
    const run = await rt.dispatcher.run({ tool: "acme_echo", input: {}, caller: as("USER"), door: "runtime" });
    expect(run.errorKind).toBe("PERMISSION_DENIED");
  });

  it("refuses an upstream that cannot be reached with the failure's message and stores nothing", async () => {
    fake.upstream("down").failConnect = new Error("connection refused");
    const e = await refusal(
      rt.connectors.put(as("ADMIN"), { name: "down", kind: "fake", settings: { upstream: "down" } }),
    );
    expect(e.code).toBe("BAD_USER_INPUT");
    expect(e.message).toMatch(/connection refused/);
    expect(await rt.db.connector.findUnique({ where: { name: "down" } })).toBeNull();
  });

  it("refuses a tool whose surface name another entry holds, naming both", async () => {
    await rt.presets.create(
      { name: "dup_echo", description: "a preset", baseTool: "acme_echo", fixedKwargs: {} },
      as("ADMIN"),
    );
    const e = await refusal(
      rt.connectors.put(as("ADMIN"), { name: "dup", kind: "fake", settings: { upstream: "dup" } }),
    );
    expect(e.code).toBe("BAD_USER_INPUT");
    expect(e.issues).toContainEqual({
      path: "/tools/echo",
      message: 'upstream tool "echo" maps to "dup_echo", which a preset holds',
    });
    expect(await rt.db.connector.findUnique({ where: { name: "dup" } })).toBeNull();
    expect(fake.upstream("dup").open).toBe(0);
  });

  it("deletes a connector: its tools leave the surface and its connection closes", async () => {
    await rt.connectors.put(as("ADMIN"), { name: "gone", kind: "fake", settings: { upstream: "gone" } });
    expect(rt.surface.resolve("gone_echo")).toBeDefined();
    expect(await rt.connectors.delete(as("ADMIN"), "gone")).toBe(true);
    expect(rt.surface.base("gone_echo")).toBeUndefined();
    expect(fake.upstream("gone").open).toBe(0);
    expect(await rt.connectors.delete(as("ADMIN"), "gone")).toBe(false);
  });
});
