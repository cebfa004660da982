import { afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import { createLogger } from "../../src/log.ts";
import { PostgresLimits } from "../../src/limits/postgres-backend.ts";
import { SLOTS_TABLE, storedKey } from "../../src/limits/postgres-slots.ts";
import type { Slot } from "../../src/limits/limit-backend.ts";
import { freshDatabase, requirePostgres } from "../helpers/databases.ts";
import { tcpLink, through } from "../helpers/tcp-link.ts";
import { until, within } from "../graphql/support.ts";

/**
 * Concurrency slots leased in PostgreSQL without Redis (docs/flow-control.md §4, src/limits/postgres-slots.ts): two
 * backends on one database stand for two instances. Needs PostgreSQL; under CI=true a missing one fails this file.
 */
const withPostgres = await requirePostgres();

describe.skipIf(!withPostgres)("concurrency slots leased in PostgreSQL", () => {
  const cleanup: (() => Promise<unknown> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  /** A database and a way to open backends on it (each one instance's limits; `instances`: the live count). */
  async function database() {
    const db = await freshDatabase("postgres");
    cleanup.push(db.drop);
    const pools: pg.Pool[] = [];
    cleanup.push(() => Promise.all(pools.map((p) => p.end())));
    const open = async (opts: { url?: string; leaseMs?: number; instances?: number } = {}) => {
      const pool = new pg.Pool({ connectionString: opts.url ?? db.url, connectionTimeoutMillis: 1000 });
      pool.on("error", () => {});
      pools.push(pool);
      const lines: string[] = [];
      const log = createLogger({}, (line) => lines.push(line));
      const limits = await PostgresLimits.open(pool, log, () => opts.instances ?? 2, { leaseMs: opts.leaseMs });
      cleanup.push(() => limits.close());
      return Object.assign(limits, { lines });
    };
    const sql = async <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) => {
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      try {
        return (await c.query<T>(text, values)).rows;
      } finally {
        await c.end();
      }
    };
    return { url: db.url, open, sql };
  }

  it("should never hold more than 2 slots of a cap of 2 while 40 loops on two backends take, hold and release them", async () => {
    const { open } = await database();
    const backends = [await open(), await open()];
    let held = 0;
    let most = 0;
    const took = [0, 0];
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const b = i % 2;
        for (let round = 0; round < 15; round++) {
          const slot = await backends[b].tryAcquire("cap2", 2);
          if (!slot) continue;
          most = Math.max(most, ++held);
          took[b]++;
          await new Promise((r) => setTimeout(r, 2));
          held--;
          await slot.release();
        }
      }),
    );
    console.log("slots taken by each backend:", took, "most held at once:", most);
    expect(most).toBe(2);
    expect(took[0]).toBeGreaterThan(0);
    expect(took[1]).toBeGreaterThan(0);
    expect(backends.map((b) => b.degraded)).toEqual([false, false]);
  });

  it("should let exactly one of 20 acquires racing from two backends for a cap of 1 win", async () => {
    const { open, sql } = await database();
    const backends = [await open(), await open()];
    await (await backends[0].tryAcquire("warm", 1))?.release();
    const slots = await Promise.all(Array.from({ length: 20 }, (_, i) => backends[i % 2].tryAcquire("race", 1)));
    expect(slots.filter(Boolean)).toHaveLength(1);
    const rows = await sql(`SELECT slot FROM ${SLOTS_TABLE} WHERE key = $1`, [storedKey("race")]);
    expect(rows).toEqual([{ slot: 0 }]);
  });

  it("should give a slot one backend released to the other backend", async () => {
    const { open } = await database();
    const [a, b] = [await open(), await open()];
    const first = (await a.tryAcquire("handover", 2))!;
    const second = await a.tryAcquire("handover", 2);
    expect(second).not.toBeNull();
    expect(await b.tryAcquire("handover", 2)).toBeNull();
    await first.release();
    const onB = await b.tryAcquire("handover", 2);
    expect(onB).not.toBeNull();
    expect(await a.tryAcquire("handover", 2)).toBeNull();
  });

  it("should give the slots of a backend that stopped refreshing (closed, as a killed instance) back once its lease expired, not before", async () => {
    const { open, sql } = await database();
    const gone = await open({ leaseMs: 1500 });
    const b = await open();
    expect(await gone.tryAcquire("dead", 2)).not.toBeNull();
    expect(await gone.tryAcquire("dead", 2)).not.toBeNull();
    await gone.close();
    const [{ expires }] = await sql<{ expires: number }>(
      `SELECT extract(epoch FROM max(expires_at)) * 1000 AS expires FROM ${SLOTS_TABLE} WHERE key = $1`,
      [storedKey("dead")],
    );
    expect(await b.tryAcquire("dead", 2)).toBeNull();
    let slot: Slot | null = null;
    await until("the dead backend's lease to come back", async () => (slot = await b.tryAcquire("dead", 2)) !== null);
    const [{ now }] = await sql<{ now: number }>("SELECT extract(epoch FROM now()) * 1000 AS now");
    expect(Number(now)).toBeGreaterThanOrEqual(Number(expires));
    expect(slot).not.toBeNull();
  });

  it("should keep a held slot's lease refreshed past its length, so no other backend takes it", async () => {
    const { open, sql } = await database();
    const holder = await open({ leaseMs: 600 });
    const other = await open();
    const slot = (await holder.tryAcquire("kept", 1))!;
    const expiry = async () =>
      Number(
        (
          await sql<{ at: number }>(
            `SELECT extract(epoch FROM expires_at) * 1000 AS at FROM ${SLOTS_TABLE} WHERE key = $1`,
            [storedKey("kept")],
          )
        )[0]?.at ?? 0,
      );
    const first = await expiry();
    // Refreshed until its lease ends more than two lease lengths after it was first taken.
    await until("the lease to be refreshed past two lease lengths", async () => (await expiry()) > first + 1200);
    expect(await other.tryAcquire("kept", 1)).toBeNull();
    await slot.release();
    expect(await other.tryAcquire("kept", 1)).not.toBeNull();
  });

  it("should take slots of keys with NUL bytes, quotes, newlines, lone surrogates and 5,000 characters, each key its own", async () => {
    const { open } = await database();
    const limits = await open();
    const keys = ["a\u0000b", "a\u0000c", "a", "'); DROP TABLE x; --", 'q"\\\n', "\ud800", "\udc00", "k".repeat(5000)];
    keys.push(`${keys.at(-1)}k`);
    const slots = await Promise.all(keys.map((k) => limits.tryAcquire(k, 1)));
    expect(slots.every(Boolean)).toBe(true);
    for (const k of keys) expect(await limits.tryAcquire(k, 1)).toBeNull();
    await slots[0]!.release();
    expect(await limits.tryAcquire(keys[0], 1)).not.toBeNull();
    expect(await limits.tryAcquire(keys[1], 1)).toBeNull();
    expect(limits.degraded).toBe(false);
  });

  it("should degrade to this instance's share within 2 s when the link to PostgreSQL is cut or goes silent, and share again once it is back", async () => {
    const { url, open } = await database();
    const target = new URL(url);
    const link = await tcpLink(target.hostname, Number(target.port || 5432));
    cleanup.push(() => link.close());
    const limits = await open({ url: through(url, link), instances: 2 });
    await (await limits.tryAcquire("cut", 4))!.release();
    for (const outage of [() => link.cut(), () => link.slow(10_000)]) {
      outage();
      // A cap of 4 over 2 instances: 2 here while degraded.
      const local = await within("a degraded acquire", limits.tryAcquire("cut", 4), 2500);
      expect(local).not.toBeNull();
      expect(limits.degraded).toBe(true);
      const more = await within("a second degraded acquire", limits.tryAcquire("cut", 4), 2500);
      expect(more).not.toBeNull();
      expect(await within("a third", limits.tryAcquire("cut", 4), 2500)).toBeNull();
      await local!.release();
      await more!.release();
      link.slow(0);
      link.restore();
      await until("the limits to be shared again", async () => {
        await (await limits.tryAcquire("cut", 4))?.release();
        return !limits.degraded;
      });
    }
    expect(limits.lines.filter((l) => /limits degrade to per-instance shares: PostgreSQL/.test(l))).toHaveLength(2);
  });
});
