import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.ts";
import { isRefusal, type Counter, type Slot } from "../../src/limits/limit-backend.ts";
import { PostgresLimits } from "../../src/limits/postgres-backend.ts";
import { RedisLimits } from "../../src/limits/redis-backend.ts";
import { freshDatabase, redisTestUrl, requirePostgres, requireRedis } from "../helpers/databases.ts";
import { until } from "../graphql/support.ts";

/**
 * Block leasing of generous limits in Redis (docs/flow-control.md §4): instances take a rate's tokens and a cap's
 * slots from Redis a block at a time, and the shared limits still hold across them. Needs Redis.
 */
const withRedis = await requireRedis();
const withPostgres = await requirePostgres();

/** Takes tokens of `key` with `callers` concurrent callers until each is refused once; the tokens admitted. */
async function drain(counter: Counter, callers: number, key = ""): Promise<{ admitted: number; refusedMs: number[] }> {
  let admitted = 0;
  const refusedMs: number[] = [];
  await Promise.all(
    Array.from({ length: callers }, async () => {
      for (;;) {
        try {
          await counter.consume(key);
          admitted++;
        } catch (e) {
          if (!isRefusal(e)) throw e;
          refusedMs.push(e.msBeforeNext);
          return;
        }
      }
    }),
  );
  return { admitted, refusedMs };
}

/** Takes slots of `key` (one of `max`) from `backend` until it has none free; the slots taken. */
async function takeAll(backend: RedisLimits, key: string, max: number): Promise<Slot[]> {
  const slots: Slot[] = [];
  for (;;) {
    const slot = await backend.tryAcquire(key, max);
    if (!slot) return slots;
    slots.push(slot);
  }
}

describe.skipIf(!withRedis)("limits leased in blocks from Redis", () => {
  const cleanup: (() => Promise<unknown> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });
  const log = createLogger({}, () => {});
  /** `n` backends on one Redis prefix of their own, each counting `instances` live instances. */
  async function backends(n: number, instances = n, leaseMs?: number): Promise<{ prefix: string; all: RedisLimits[] }> {
    const prefix = `tai42-lease-test-${randomUUID()}:`;
    const all = Array.from({ length: n }, () => new RedisLimits(redisTestUrl(), prefix, log, () => instances, leaseMs));
    for (const b of all) cleanup.push(() => b.close());
    await Promise.all(all.map((b) => b.ready()));
    for (const b of all) expect(b.degraded).toBe(false);
    return { prefix, all };
  }

  it("should admit no more than a generous rate's tokens in its window across two backends, each taking a block from Redis at a time", async () => {
    const { all } = await backends(2);
    // 165 a minute over 2 instances: blocks of floor(165 / (2 × 8)) = 10, the last one 5.
    const [a, b] = all.map((x) => x.rate("rate:generous", 165, 60));
    await a.consume("");
    expect((await a.get(""))?.consumedPoints).toBe(10);
    const [onA, onB] = await Promise.all([drain(a, 7), drain(b, 5)]);
    expect(1 + onA.admitted + onB.admitted).toBe(165);
    for (const ms of [...onA.refusedMs, ...onB.refusedMs]) expect(ms).toBeGreaterThan(50_000);
  });

  it("should let a block's leftover tokens expire with the window they were taken in", async () => {
    const { all } = await backends(1);
    // 160 a second on 1 instance: blocks of 20.
    const [rate] = all.map((x) => x.rate("rate:window", 160, 1));
    await rate.consume("");
    expect((await rate.get(""))?.consumedPoints).toBe(20);
    await until("the window to end in Redis", async () => (await rate.get("")) === null);
    // The 19 left are of the old window: the next token opens a new window with a block of its own.
    await rate.consume("");
    expect((await rate.get(""))?.consumedPoints).toBe(20);
  });

  it("should give a token back to this backend's block, so it is the next one taken without Redis", async () => {
    const { all } = await backends(1);
    const [rate] = all.map((x) => x.rate("rate:given-back", 80, 60));
    for (let i = 0; i < 10; i++) await rate.consume("k");
    await rate.reward("k", 3);
    expect((await rate.get("k"))?.consumedPoints).toBe(10);
    const { admitted } = await drain(rate, 3, "k");
    expect(10 + admitted - 3).toBe(80);
  });

  it("should keep a small rate exact: every token is taken in Redis, none leased", async () => {
    const { all } = await backends(2);
    // 10 a minute over 2 instances: a block would be 0, so each dispatch asks Redis.
    const [a, b] = all.map((x) => x.rate("rate:small", 10, 60));
    for (const c of [a, a, b]) await c.consume("");
    expect((await a.get(""))?.consumedPoints).toBe(3);
    const [onA, onB] = await Promise.all([drain(a, 3), drain(b, 3)]);
    expect(3 + onA.admitted + onB.admitted).toBe(10);
  });

  it("should never hold more than a cap's max leased slots across two backends under concurrent acquire and release", async () => {
    const { prefix, all } = await backends(2);
    const max = 64;
    const key = "cap|";
    let held = 0;
    let most = 0;
    let taken = 0;
    const probe = new (await import("ioredis")).Redis(redisTestUrl());
    cleanup.push(() => probe.quit());
    let storeMost = 0;
    const end = Date.now() + 1500;
    const worker = async (backend: RedisLimits) => {
      while (Date.now() < end) {
        const slot = await backend.tryAcquire(key, max);
        if (!slot) {
          await new Promise((r) => setImmediate(r));
          continue;
        }
        most = Math.max(most, ++held);
        taken++;
        await new Promise((r) => setTimeout(r, taken % 3));
        held--;
        await slot.release();
      }
    };
    const sampling = (async () => {
      while (Date.now() < end) {
        storeMost = Math.max(storeMost, await probe.zcard(`semaphore:${prefix}limits:slots:${key}`));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    await Promise.all([...all.flatMap((b) => Array.from({ length: 50 }, () => worker(b))), sampling]);
    expect(most).toBeLessThanOrEqual(max);
    expect(storeMost).toBeLessThanOrEqual(max);
    expect(most).toBeGreaterThan(max / 2);
    expect(taken).toBeGreaterThan(1000);
  });

  it("should give an idle backend's leased slots back, so another backend can take all of a cap's slots", async () => {
    const { all } = await backends(2);
    const [a, b] = all;
    const max = 64;
    const slot = await a.tryAcquire("idle|", max);
    expect(slot).not.toBeNull();
    await slot!.release();
    // a holds a lease of 4 slots, one used and released: b takes 60, and all 64 once a's lease went back.
    const onB: Slot[] = [];
    await until("b to hold every slot", async () => {
      onB.push(...(await takeAll(b, "idle|", max)));
      return onB.length === max;
    });
    expect(await a.tryAcquire("idle|", max)).toBeNull();
    await Promise.all(onB.map((s) => s.release()));
  });

  it("should give back the slots a dead process leased within one lease", async () => {
    const leaseMs = 1500;
    const { prefix, all } = await backends(1, 1, leaseMs);
    const [b] = all;
    const max = 64;
    const module = pathToFileURL(resolve("dist/limits/redis-backend.js")).href;
    const script = `
      const { RedisLimits } = await import(${JSON.stringify(module)});
      const log = { info() {}, warn() {}, error() {}, child() { return log; } };
      const [url, prefix] = ${JSON.stringify([redisTestUrl(), prefix])};
      const limits = new RedisLimits(url, prefix, log, () => 1, ${leaseMs});
      await limits.ready();
      const slot = await limits.tryAcquire("dead|", ${max});
      console.log(slot ? "held" : "none");
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    cleanup.push(() => void child.kill("SIGKILL"));
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    await until("the child to hold its lease", () => out.includes("held"));
    // Its lease is 64 / 8 = 8 slots: 56 are left.
    const before = await takeAll(b, "dead|", max);
    expect(before).toHaveLength(max - 8);
    await Promise.all(before.map((s) => s.release()));
    const killed = Date.now();
    child.kill("SIGKILL");
    const onB: Slot[] = [];
    await until(
      "the dead process's slots to come back",
      async () => {
        onB.push(...(await takeAll(b, "dead|", max)));
        return onB.length === max;
      },
      leaseMs * 3,
    );
    expect(Date.now() - killed).toBeLessThan(leaseMs + 1000);
    await Promise.all(onB.map((s) => s.release()));
  });
});

describe.skipIf(!withPostgres)("rates leased in blocks from PostgreSQL", () => {
  it("should admit no more than a generous rate's tokens in its window across two backends on one PostgreSQL", async () => {
    const database = await freshDatabase("postgres");
    const pools = [0, 1].map(() => new pg.Pool({ connectionString: database.url, max: 4 }));
    try {
      const log = createLogger({}, () => {});
      const all = [];
      for (const pool of pools) all.push(await PostgresLimits.open(pool, log, () => 2));
      const [a, b] = all.map((x) => x.rate("rate:generous", 165, 60));
      await a.consume("");
      expect((await a.get(""))?.consumedPoints).toBe(10);
      const [onA, onB] = await Promise.all([drain(a, 7), drain(b, 5)]);
      expect(1 + onA.admitted + onB.admitted).toBe(165);
      expect(all.map((x) => x.degraded)).toEqual([false, false]);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
      await database.drop();
    }
  });
});
