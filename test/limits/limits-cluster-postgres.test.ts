import { afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import { freshDatabase } from "../helpers/databases.ts";
import { until } from "../graphql/support.ts";
import { startCluster, withHaproxyServices } from "../ops/haproxy-cluster.ts";
import { counters, degraded, dispatchOver } from "./support.ts";

/**
 * A concurrency cap that holds across instances on PostgreSQL without Redis (docs/flow-control.md §4): three
 * `tai serve` processes over one PostgreSQL, no REDIS_URL, behind haproxy, round-robin; their slots are leased in
 * PostgreSQL. The bodies of `test/fixtures/limits-tools.ts` count themselves in Redis, the test's own store (the
 * instances never use it). Needs PostgreSQL, Redis and haproxy; under CI=true a missing one fails this file.
 */
const withServices = await withHaproxyServices();

describe.skipIf(!withServices)("a cap across three instances on PostgreSQL without Redis", () => {
  const cleanup: (() => Promise<unknown> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("should run at most 2 bodies of a tool capped at 2 under 60 concurrent dispatches split across three instances without Redis, every other dispatch refused with a retry time, no instance degraded", async () => {
    const database = await freshDatabase("postgres");
    cleanup.push(database.drop);
    const c = await startCluster(database.url, 3, {
      redis: false,
      env: { TAI_MODULES: "test/fixtures/limits-tools.ts", TAI_LOG: "info" },
    });
    cleanup.push(c.close);
    const count = counters();
    cleanup.push(count.close);

    const runs = await Promise.all(
      Array.from({ length: 60 }, () => dispatchOver(c.url, "capped_probe", { key: count.key })),
    );
    // Per-instance shares would be floor(2 / 3) = 1 each, 3 at once in all: 2 is the shared cap.
    expect(await count.most()).toBe(2);
    const succeeded = runs.filter((r) => r.status === "SUCCEEDED");
    const refused = runs.filter((r) => r.status !== "SUCCEEDED");
    console.log(
      "capped_probe on 3 instances without Redis:",
      succeeded.length,
      "succeeded,",
      refused.length,
      "refused",
    );
    expect(succeeded.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r).toMatchObject({ status: "FAILED", errorKind: "RATE_LIMITED" });
      expect(r.details?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    }

    for (const port of c.ports) expect(await degraded(`http://127.0.0.1:${port}/graphql`)).toBe(0);
    for (const s of c.servers) expect(s.process.stderr()).not.toMatch(/limits degrade to per-instance shares/);
    // The slots were PostgreSQL's: its table of leases exists, and every lease was given back.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    cleanup.push(() => client.end());
    const leases = async () =>
      (await client.query<{ n: number }>("SELECT count(*)::int AS n FROM tai42_limit_slots")).rows[0].n;
    await until("every lease to be given back", async () => (await leases()) === 0);
  });
});
