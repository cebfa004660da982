import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { App } from "../../../src/app.ts";
import { until } from "../../graphql/support.ts";
import { as, testRuntime, type TestRuntime } from "../../helpers/runtime.ts";
import { EVERYTHING } from "./support.ts";

/**
 * server-everything's own `notifications/tools/list_changed`: it sends them right after `initialize`, as it registers
 * the tools that depend on the client's capabilities (the asking tool only for a client that advertises elicitation),
 * and never changes its tool list afterwards, so no diff can be drawn from it (the diff is list-changed-e2e.test.ts's,
 * against test/fixtures/growing-mcp-server.mjs). What it must not do is store a version: a server instance relists the
 * same tools, and an instance that cannot park (`tai mcp`'s "runs" duties) leaves it to the servers.
 */
const admin = as("ADMIN");
let a: TestRuntime;
const others: TestRuntime[] = [];

beforeAll(async () => {
  a = await testRuntime({ app: new App() });
  await a.connectors.put(admin, {
    name: "every",
    kind: "mcp",
    settings: { command: process.execPath, args: [EVERYTHING, "stdio"] },
  });
}, 120_000);
afterAll(async () => {
  for (const rt of others) await rt.dispose();
  await a?.dispose();
});

const joined = async (duties?: "runs") => {
  const rt = await testRuntime({ app: new App(), databaseUrl: a.config.databaseUrl, ...(duties ? { duties } : {}) });
  others.push(rt);
  return rt;
};
const echo = (rt: TestRuntime) =>
  rt.dispatcher.run({ tool: "every_echo", input: { message: "hi" }, caller: as("USER"), door: "runtime" });

/** The stored listing is still the put's: one version, the asking tool on it. */
async function expectThePutsListing(): Promise<void> {
  expect((await a.connectors.changes(admin, "every", 5)).map((c) => c.cause)).toEqual(["PUT"]);
  const every = (await a.connectors.get(admin, "every"))!;
  expect(every.listingVersion).toBe(1);
  expect(every.tools.map((t) => t.name)).toContain("trigger-elicitation-request");
  expect(every.tools.every((t) => t.pauses)).toBe(true);
}

describe("server-everything's list_changed", () => {
  it("should be relisted by a second server instance whose connection hears it, storing no new listing version", async () => {
    const put = (await a.connectors.get(admin, "every"))!.refreshedAt;
    const b = await joined();
    expect((await echo(b)).status).toBe("SUCCEEDED");
    await until(
      "the second instance relisted",
      async () => (await a.connectors.get(admin, "every"))!.refreshedAt !== put,
      10_000,
    );
    await expectThePutsListing();
  }, 60_000);

  it("should not be relisted by an instance that cannot park, whose connection the upstream offers no asking tool", async () => {
    const c = await joined("runs");
    expect((await echo(c)).status).toBe("SUCCEEDED");
    await until(
      "the instance heard the list change",
      () => c.logLines.some((l) => l.includes("left to the server instances to relist")),
      10_000,
    );
    await expectThePutsListing();
    expect(c.surface.resolve("every_trigger-elicitation-request")).toBeDefined();
  }, 60_000);
});
