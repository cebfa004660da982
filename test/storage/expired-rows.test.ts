import { afterEach, describe, expect, it } from "vitest";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";

/**
 * Expired key-value rows (an MCP session whose client never came back, a cache entry)
 * already read as absent; a server also deletes them, so the table does not grow with
 * abandoned rows. Runs on the database TAI_TEST_DB selects.
 */
describe("expired key-value rows", () => {
  let rt: TestRuntime | undefined;
  afterEach(() => rt?.dispose());

  it("should be deleted by a server's sweep, and live ones kept", async () => {
    rt = await testRuntime({ storeSweepMs: 20 });
    const past = new Date(Date.now() - 1000);
    const future = new Date(Date.now() + 3_600_000);
    await rt.db.cacheEntry.create({ data: { key: "mcp:abandoned", tool: "mcp-session", value: {}, expiresAt: past } });
    await rt.db.cacheEntry.create({ data: { key: "mcp:live", tool: "mcp-session", value: {}, expiresAt: future } });
    const db = rt.db;
    await until(
      "the expired row to be deleted",
      async () => (await db.cacheEntry.count({ where: { key: "mcp:abandoned" } })) === 0,
    );
    expect(await db.cacheEntry.count({ where: { key: "mcp:live" } })).toBe(1);
  });
});
