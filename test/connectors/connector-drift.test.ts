import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import type { ConnectorChange } from "../../src/connectors/connector-record.ts";
import { ApiError } from "../../src/errors.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";
import { fakeKinds, fakeTool } from "../fixtures/connector-kinds.ts";

const fake = fakeKinds("fake");
let rt: TestRuntime;
const published: ConnectorChange[] = [];
const admin = as("ADMIN");

beforeAll(async () => {
  const app = new App();
  app.plugin({ name: "fake-kinds", connectors: { fake: fake.kind } });
  rt = await testRuntime({ app });
  rt.bus.listen("connectorChanged", (c) => void published.push(c));
  await rt.connectors.put(admin, { name: "d", kind: "fake", settings: { upstream: "d" } });
}, 120_000);
afterAll(async () => rt?.dispose());

const up = () => fake.upstream("d");

describe("connector drift", () => {
  it("stores no new version when a refresh finds the same listing", async () => {
    const { connector, change } = await rt.connectors.refresh(admin, "d");
    expect(change).toBeNull();
    expect(connector.listingVersion).toBe(1);
    expect(connector.refreshError).toBeNull();
  });

  it("stores a new version with what was added, removed and changed, and publishes it", async () => {
    up().tools = [
      fakeTool("echo", "read", { description: "now different" }),
      fakeTool("write_thing", "write"),
      fakeTool("fresh", "read"),
    ];
    const { connector, change } = await rt.connectors.refresh(admin, "d");
    expect(connector.listingVersion).toBe(2);
    expect(change).toMatchObject({
      cause: "REFRESH",
      listingVersion: 2,
      diff: { added: ["d_fresh"], removed: [], changed: [{ name: "d_echo", fields: ["description"] }], broken: [] },
    });
    expect(rt.surface.resolve("d_fresh")).toBeDefined();
    await until("the change published", () => published.some((c) => c.listingVersion === 2));
    expect((await rt.connectors.changes(admin, "d")).map((c) => c.listingVersion)).toEqual([2, 1]);
  });

  it("never lowers a pinned tier when a later proposal is lower, and applies a raise", async () => {
    up().tools = [fakeTool("echo", "write"), fakeTool("write_thing", "read"), fakeTool("fresh", "read")];
    const { connector, change } = await rt.connectors.refresh(admin, "d");
    expect(change?.diff.changed.map((c) => c.name).sort()).toEqual(["d_echo", "d_write_thing"]);
    const tiers = Object.fromEntries(connector.tools.map((t) => [t.name, t.tier]));
    expect(tiers).toEqual({ echo: "write", write_thing: "write", fresh: "read" });
    expect(rt.surface.resolve("d_write_thing")?.tier).toBe("write");
    const run = await rt.dispatcher.run({ tool: "d_write_thing", input: {}, caller: as("READER"), door: "runtime" });
    expect(run.errorKind).toBe("PERMISSION_DENIED");
  });

  it("lets the ADMIN's tier win over the pinned proposal", async () => {
    const current = (await rt.connectors.get(admin, "d"))!;
    await rt.connectors.put(
      admin,
      { name: "d", kind: "fake", settings: { upstream: "d" }, tools: { write_thing: { tier: "read" } } },
      current.version,
    );
    expect(rt.surface.resolve("d_write_thing")?.tier).toBe("read");
    const run = await rt.dispatcher.run({ tool: "d_write_thing", input: {}, caller: as("READER"), door: "runtime" });
    expect(run.status).toBe("SUCCEEDED");
  });

  it("refuses a put whose listing removes a preset's base, naming the preset, and stores nothing", async () => {
    await rt.presets.create(
      { name: "fresh_hi", description: "fresh with text", baseTool: "d_fresh", fixedKwargs: { text: "hi" } },
      admin,
    );
    const before = (await rt.connectors.get(admin, "d"))!;
    up().tools = [fakeTool("echo", "write"), fakeTool("write_thing", "read")];
    const e = await rt.connectors
      .put(admin, { name: "d", kind: "fake", settings: { upstream: "d" } }, before.version)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).code).toBe("BAD_USER_INPUT");
    expect((e as ApiError).issues).toContainEqual({
      path: "/dependants/fresh_hi",
      message: 'preset "fresh_hi": its base tool "d_fresh" was removed',
    });
    const after = (await rt.connectors.get(admin, "d"))!;
    expect([after.version, after.listingVersion]).toEqual([before.version, before.listingVersion]);
  });

  it("refuses deleting a connector whose tool a preset builds on, naming the preset", async () => {
    const e = await rt.connectors.delete(admin, "d").catch((x: unknown) => x);
    expect((e as ApiError).code).toBe("CONFLICT");
    expect((e as ApiError).message).toMatch(/preset "fresh_hi"/);
    expect(await rt.connectors.get(admin, "d")).not.toBeNull();
  });

  it("stores a refresh that removes a preset's base with the preset named as broken, and logs it", async () => {
    const { change } = await rt.connectors.refresh(admin, "d");
    expect(change?.diff.removed).toEqual(["d_fresh"]);
    expect(change?.diff.broken).toEqual([
      { name: "fresh_hi", kind: "PRESET", tool: "d_fresh", reason: 'its base tool "d_fresh" was removed' },
    ]);
    expect(rt.surface.base("fresh_hi")).toBeUndefined();
    expect(rt.logLines.some((l) => l.includes("broke a dependant") && l.includes("fresh_hi"))).toBe(true);
  });

  it("records a failed refresh's error and keeps the stored listing", async () => {
    up().failList = new Error("the upstream is confused");
    try {
      const { connector, change } = await rt.connectors.refresh(admin, "d");
      expect(change).toBeNull();
      expect(connector.refreshError).toMatch(/confused|failed unexpectedly/);
      expect(connector.tools.map((t) => t.name)).toEqual(["echo", "write_thing"]);
    } finally {
      up().failList = null;
    }
  });

  it("re-lists after the upstream says its tools changed (LIST_CHANGED)", async () => {
    up().changeTools([fakeTool("echo", "write"), fakeTool("write_thing", "read"), fakeTool("late", "read")]);
    await until(
      "the list change stored",
      async () => (await rt.connectors.changes(admin, "d", 1))[0]?.cause === "LIST_CHANGED",
    );
    await until("the new tool served", () => rt.surface.resolve("d_late") !== undefined);
  });
});
