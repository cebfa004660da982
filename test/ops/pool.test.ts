import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { pgAdminUrl, requirePostgres } from "../helpers/databases.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";
import { sample } from "./support.ts";

/**
 * TAI_DB_POOL (docs/deploy.md §"PostgreSQL"): an instance never holds more PostgreSQL
 * connections than its pool, however much work it is given; the rest waits for one, and
 * `/metrics` shows the waiting and the connections in use. Under CI=true an unreachable
 * PostgreSQL fails this file.
 */
const ready = await requirePostgres();

describe.skipIf(!ready)("the PostgreSQL pool of an instance", () => {
  let rt: TestRuntime | undefined;
  afterEach(async () => {
    await rt?.dispose();
    rt = undefined;
  });

  it("should hold at most TAI_DB_POOL connections under 30 concurrent queries, the others waiting for one", async () => {
    rt = await testRuntime({ kind: "postgres", config: { dbPool: 3 } });
    const database = new URL(rt.config.databaseUrl).pathname.slice(1);
    const admin = new pg.Client({ connectionString: pgAdminUrl() });
    await admin.connect();
    try {
      let peak = 0;
      let waited = 0;
      let busy = true;
      const sampler = (async () => {
        while (busy) {
          const { rows } = await admin.query<{ n: string }>(
            // The queue engine's own pool (at most QUEUE_POOL, docs/deploy.md) is not Prisma's.
            "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name <> 'tai42-queue'",
            [database],
          );
          peak = Math.max(peak, Number(rows[0].n));
          const text = await rt!.metrics.text();
          waited = Math.max(waited, Number(/tai42_db_pool_connections\{state="waiting"\} (\d+)/.exec(text)?.[1] ?? 0));
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      await Promise.all(Array.from({ length: 30 }, () => rt!.db.$executeRawUnsafe("SELECT pg_sleep(0.05)")));
      busy = false;
      await sampler;
      expect(peak).toBeGreaterThan(0);
      expect(peak).toBeLessThanOrEqual(3);
      expect(waited).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
  });

  it("should report the connection a held transaction uses as in use, and give it back after", async () => {
    rt = await testRuntime({ kind: "postgres", config: { dbPool: 3 } });
    const inUse = async () => sample(await rt!.metrics.text(), "tai42_db_pool_connections", { state: "in_use" });
    let held = -1;
    await rt.db.$transaction(async (tx) => {
      await tx.$queryRawUnsafe("SELECT 1");
      held = (await inUse())!;
    });
    expect(held).toBeGreaterThanOrEqual(1);
    expect(held).toBeLessThanOrEqual(3);
    // Background duties (the heartbeat, the version check) borrow a connection for a moment.
    await until("the transaction's connection to be idle again", async () => (await inUse()) === 0);
  });
});
