import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import type { ConnectorChange } from "../../src/connectors/connector-record.ts";
import { ApiError } from "../../src/errors.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";
import { fakeKinds, fakeTool } from "../fixtures/connector-kinds.ts";

/**
 * docs/connectors.md §7: a manifest selects connector tools like any other tool, and a listing change that removes one
 * it names is refused on a put and marked (broken, kind MANIFEST) on a refresh; the periodic refresh (cause POLL) of a
 * server instance stores a changed listing with its diff.
 */
const fake = fakeKinds("fake");
const admin = as("ADMIN");
let rt: TestRuntime;
let poller: TestRuntime;
const published: ConnectorChange[] = [];

/** A server instance (the default duties) refreshing its connectors every `seconds` (0: never). */
async function runtime(seconds: number): Promise<TestRuntime> {
  const app = new App();
  app.plugin({ name: "fake-kinds", connectors: { fake: fake.kind } });
  return testRuntime({ app, config: { connectorRefreshSeconds: seconds } });
}

beforeAll(async () => {
  rt = await runtime(0);
  await rt.connectors.put(admin, { name: "m", kind: "fake", settings: { upstream: "m" } });
  poller = await runtime(0.2);
  poller.bus.listen("connectorChanged", (c) => void published.push(c));
  await poller.connectors.put(admin, { name: "p", kind: "fake", settings: { upstream: "p" } });
}, 120_000);
afterAll(async () => {
  await poller?.dispose();
  await rt?.dispose();
});

/** A dispatch through an API door, which sees the curated surface. */
const run = (tool: string) => rt.dispatcher.run({ tool, input: { text: "hi" }, caller: as("USER"), door: "graphql" });

describe("a manifest selecting connector tools", () => {
  it("serves only the connector tools its selection names; an API door dispatches those and no other", async () => {
    await rt.manifests.put({ name: "only-m-echo", document: { tools: { include: ["m_echo"] } } }, undefined, admin);
    await rt.manifests.activate("only-m-echo", admin);
    expect(rt.surface.resolve("m_echo")).toMatchObject({ origin: "CONNECTOR" });
    expect(rt.surface.resolve("m_write_thing")).toBeUndefined();
    expect(await run("m_echo")).toMatchObject({ status: "SUCCEEDED", data: { tool: "echo", echoed: { text: "hi" } } });
    expect((await run("m_write_thing")).errorKind).toBe("NOT_FOUND");
  });

  it("refuses a put whose listing removes the tool the active manifest names, naming the manifest, and stores nothing", async () => {
    const before = (await rt.connectors.get(admin, "m"))!;
    fake.upstream("m").tools = [fakeTool("write_thing", "write")];
    const e = await rt.connectors
      .put(admin, { name: "m", kind: "fake", settings: { upstream: "m" } }, before.version)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).code).toBe("BAD_USER_INPUT");
    expect(JSON.stringify((e as ApiError).issues)).toContain("only-m-echo");
    const after = (await rt.connectors.get(admin, "m"))!;
    expect([after.version, after.listingVersion]).toEqual([before.version, before.listingVersion]);
    expect(rt.surface.resolve("m_echo")).toBeDefined();
  });

  it("marks the manifest broken when a refresh removes that tool, and logs it", async () => {
    const { change } = await rt.connectors.refresh(admin, "m");
    expect(change?.diff.removed).toEqual(["m_echo"]);
    expect(change?.diff.broken).toEqual([
      {
        name: "only-m-echo",
        kind: "MANIFEST",
        tool: "m_echo",
        reason: 'its tool selection names "m_echo", which was removed',
      },
    ]);
    expect(rt.logLines.some((l) => l.includes("broke a dependant") && l.includes("only-m-echo"))).toBe(true);
  });
});

describe("the periodic refresh", () => {
  it("stores a changed listing as a POLL version with its diff, published, with no caller asking", async () => {
    fake.upstream("p").tools = [fakeTool("echo", "read"), fakeTool("write_thing", "write"), fakeTool("polled", "read")];
    await until(
      "the poll stored the change",
      async () => (await poller.connectors.changes(admin, "p", 1))[0]?.cause === "POLL",
      20_000,
    );
    const [change] = await poller.connectors.changes(admin, "p", 1);
    expect(change).toMatchObject({ listingVersion: 2, diff: { added: ["p_polled"], removed: [], changed: [] } });
    await until("the polled tool served", () => poller.surface.resolve("p_polled") !== undefined);
    await until("the change published", () => published.some((c) => c.connector === "p" && c.cause === "POLL"));
  });
});
