import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { App } from "../../../src/app.ts";
import { until } from "../../graphql/support.ts";
import { redisTestUrl } from "../../helpers/databases.ts";
import { as, testRuntime, type TestRuntime } from "../../helpers/runtime.ts";

/**
 * An upstream whose tool list changes while connected: tai42 stores each change as a LIST_CHANGED version with its
 * diff, on every instance.
 */
const GROWING = resolve("test/fixtures/growing-mcp-server.mjs");
const admin = as("ADMIN");
let a: TestRuntime;
let b: TestRuntime;
const changedOnB: number[] = [];

beforeAll(async () => {
  a = await testRuntime({ app: new App(), config: { redisUrl: redisTestUrl() } });
  b = await testRuntime({ app: new App(), config: { redisUrl: redisTestUrl() }, databaseUrl: a.config.databaseUrl });
  b.bus.listen("toolsChanged", () => changedOnB.push(Date.now()));
  await a.connectors.put(admin, {
    name: "grow",
    kind: "mcp",
    settings: { command: process.execPath, args: [GROWING] },
  });
}, 120_000);
afterAll(async () => {
  await b?.dispose();
  await a?.dispose();
});

const run = (rt: TestRuntime, tool: string, input: Record<string, unknown>) =>
  rt.dispatcher.run({ tool, input, caller: admin, door: "runtime" });

describe("an MCP upstream's notifications/tools/list_changed", () => {
  it("stores a LIST_CHANGED listing version whose diff names the added tool, served on a second instance", async () => {
    const before = changedOnB.length;
    const grew = await run(a, "grow_grow", { name: "fresh" });
    expect([grew.status, grew.errorMessage]).toEqual(["SUCCEEDED", null]);
    await until(
      "the LIST_CHANGED change is stored",
      async () => (await a.connectors.changes(admin, "grow", 1))[0]?.cause === "LIST_CHANGED",
      20_000,
    );
    const [change] = await a.connectors.changes(admin, "grow", 1);
    expect(change!.diff).toMatchObject({ added: ["grow_fresh"], removed: [], changed: [] });
    expect(change!.listingVersion).toBe(2);
    await until("the second instance serves the new tool", () => b.surface.resolve("grow_fresh") !== undefined, 20_000);
    expect(changedOnB.length).toBeGreaterThan(before);
    // A stdio upstream is one process per instance: the tool exists in the process that grew it.
    const echoed = await run(a, "grow_fresh", { text: "hi" });
    expect(echoed.status).toBe("SUCCEEDED");
    expect(JSON.stringify(echoed.content)).toContain("fresh: hi");
  }, 60_000);

  it("stores the removal as the next version, and the removed tool is no longer dispatchable", async () => {
    expect((await run(a, "grow_shrink", { name: "fresh" })).status).toBe("SUCCEEDED");
    await until(
      "the removal is stored",
      async () => (await a.connectors.changes(admin, "grow", 1))[0]?.diff.removed.includes("grow_fresh") === true,
      20_000,
    );
    const [change] = await a.connectors.changes(admin, "grow", 1);
    expect(change).toMatchObject({ cause: "LIST_CHANGED", listingVersion: 3 });
    await until("the first instance dropped the tool", () => a.surface.resolve("grow_fresh") === undefined, 20_000);
    expect((await run(a, "grow_fresh", { text: "hi" })).errorKind).toBe("NOT_FOUND");
  }, 60_000);
});
