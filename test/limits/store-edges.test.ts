import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { SlotLeases, type Lease } from "../../src/limits/leased-blocks.ts";
import type { Slot } from "../../src/limits/limit-backend.ts";
import { DeploymentLimits } from "../../src/limits/open-limits.ts";
import { PostgresSlots } from "../../src/limits/postgres-slots.ts";
import { RedisLimits } from "../../src/limits/redis-backend.ts";
import { createLogger } from "../../src/log.ts";
import { until } from "../graphql/support.ts";
import { freshDatabase, redisTestUrl, requirePostgres, requireRedis } from "../helpers/databases.ts";
import { tcpLink } from "../helpers/tcp-link.ts";

/**
 * The limits' stores at their edges (docs/flow-control.md §4), found by an adversarial review: a first use that fails,
 * a lease no slot was taken from, one refresh Redis does not answer in time, a cap lowered while slots above it are
 * held.
 */
const withPostgres = await requirePostgres();
const withRedis = await requireRedis();
const quiet = () => createLogger({}, () => {});

describe("the limits' stores at their edges", () => {
  const cleanup: (() => Promise<unknown> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });
  /** A pool on a fresh PostgreSQL database, both gone after the test. */
  const freshPool = async () => {
    const db = await freshDatabase("postgres");
    cleanup.push(db.drop);
    const pool = new pg.Pool({ connectionString: db.url });
    pool.on("error", () => {});
    cleanup.push(() => pool.end());
    return pool;
  };

  it.skipIf(!withPostgres)(
    "should hold a PostgreSQL store whose first use failed to this instance's share, degraded, and share again once it opens",
    async () => {
      const pool = await freshPool();
      // The limits' first query fails (a blip as the counters' table is created); PostgreSQL answers after that.
      const query = pool.query.bind(pool) as (...a: unknown[]) => unknown;
      let failures = 1;
      (pool as unknown as { query: unknown }).query = (...a: unknown[]) =>
        failures-- > 0 ? Promise.reject(new Error("timeout exceeded when trying to connect")) : query(...a);
      const limits = new DeploymentLimits({ pool, redisPrefix: "", log: quiet(), instances: () => 1 });
      cleanup.push(() => limits.close());
      const first = await limits.tryAcquire("capped|", 2);
      expect(first).not.toBeNull();
      expect(limits.degraded).toBe(true);
      await first!.release();
      await until("the store to open", async () => {
        const s = await limits.tryAcquire("capped|", 2);
        await s?.release();
        return !limits.degraded;
      });
      expect(await limits.rate("rate:x", 10, 1).consume("")).toMatchObject({ remainingPoints: 9 });
    },
    20_000,
  );

  it("should give back a lease no slot was ever taken from, once idle, as it gives back a used one", async () => {
    const leases = new SlotLeases();
    const released: number[] = [];
    let n = 0;
    const lease = (): Lease => {
      const id = ++n;
      return { permits: 4, lost: false, release: async () => void released.push(id) };
    };
    const held = await Promise.all([0, 1, 2, 3].map(() => leases.lease("k", async () => lease())));
    // A fifth dispatch finds no room and asks for a second lease; a slot of the first is freed meanwhile.
    let grant!: (l: Lease) => void;
    const fifth = leases.lease("k", () => new Promise<Lease>((r) => (grant = r)));
    await held[0]!.release();
    grant(lease());
    for (const s of [await fifth, ...held.slice(1)]) await s!.release();
    await until("both leases to go back", () => released.length === 2, 5000);
    expect(released.sort()).toEqual([1, 2]);
  });

  it.skipIf(!withRedis)(
    "should keep a Redis lease of a cap of 1 through a refresh Redis did not answer in time: no other instance takes it",
    async () => {
      const u = new URL(redisTestUrl());
      const link = await tcpLink(u.hostname, Number(u.port || 6379));
      cleanup.push(() => link.close());
      const prefix = `tai42-test-${randomUUID()}:`;
      const a = new RedisLimits(`redis://127.0.0.1:${link.port}`, prefix, quiet(), () => 2, 3000);
      const b = new RedisLimits(redisTestUrl(), prefix, quiet(), () => 2, 3000);
      cleanup.push(
        () => a.close(),
        () => b.close(),
      );
      await Promise.all([a.ready(), b.ready()]);
      const held = await a.tryAcquire("one|", 1);
      const t0 = Date.now();
      expect(held).not.toBeNull();
      // From 2 s to 3.5 s into the 3 s lease, A's link holds every byte: a refresh sent then times out (1 s). With a
      // refresh every second the lease outlives it; with one at 0.8 of the lease (2.4 s), it would lapse at 3 s.
      const at = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, t0 + ms - Date.now())));
      await at(2000);
      link.slow(1500);
      const stolen: Slot[] = [];
      while (Date.now() < t0 + 6000) {
        const s = await b.tryAcquire("one|", 1);
        if (s) stolen.push(s);
        if (Date.now() > t0 + 3500) link.slow(0);
        await at(Date.now() - t0 + 100);
      }
      for (const s of stolen) await s.release();
      await held!.release();
      expect(stolen).toHaveLength(0);
    },
    20_000,
  );

  it.skipIf(!withPostgres)(
    "should hold a lowered PostgreSQL cap under racing acquires while a slot above it is still held",
    async () => {
      const pool = await freshPool();
      const a = new PostgresSlots(pool, quiet(), () => {});
      const b = new PostgresSlots(pool, quiet(), () => {});
      cleanup.push(
        () => a.close(),
        () => b.close(),
      );
      let most = 0;
      for (let trial = 0; trial < 20; trial++) {
        const key = `k${trial}|`;
        // Held under a cap of 10: slots 0..9, then all but slot 9 given back.
        const old: Slot[] = [];
        for (let i = 0; i < 10; i++) old.push((await a.tryAcquire(key, 10))!);
        for (let i = 0; i < 9; i++) await old[i].release();
        // The cap is 2 now: one held above it, two instances acquire at once.
        const got = await Promise.all([a.tryAcquire(key, 2), b.tryAcquire(key, 2)]);
        most = Math.max(most, 1 + got.filter(Boolean).length);
        for (const s of got) await s?.release();
        await old[9].release();
      }
      expect(most).toBe(2);
    },
    60_000,
  );
});
