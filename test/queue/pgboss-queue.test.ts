import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createLogger, type Logger } from "../../src/log.ts";
import { PgBossQueue, type PgBossQueueOptions } from "../../src/queue/pgboss-queue.ts";
import { pgAdminUrl, requirePostgres } from "../helpers/databases.ts";
import { until, within } from "../graphql/support.ts";

/**
 * The pg-boss engine of the run queue (docs/run-lifecycle.md §11.3) on a real PostgreSQL:
 * pg-boss only exists there, so this file always runs against 127.0.0.1:5432 (db `test`),
 * whatever TAI_TEST_DB says, in a schema of its own dropped at the end.
 */
const withPg = await requirePostgres();
const url = pgAdminUrl();
const schema = `pgboss_test_${randomUUID().replace(/-/g, "").slice(0, 10)}`;
const lines: string[] = [];
const log: Logger = createLogger({}, (line) => lines.push(line));
const open: PgBossQueue[] = [];
const children: ChildProcess[] = [];

function queue(queueName: string, more: Partial<PgBossQueueOptions> = {}): PgBossQueue {
  const q = new PgBossQueue({ connectionString: url, log, schema, queueName, pollSeconds: 0.5, ...more });
  open.push(q);
  return q;
}

/** A `work` that records each run id, the most at once, and settles when told to. */
function recorder() {
  const worked: string[] = [];
  const release = new Map<string, () => void>();
  let now = 0;
  let max = 0;
  const work = async (runId: string) => {
    worked.push(runId);
    max = Math.max(max, ++now);
    await new Promise<void>((r) => release.set(runId, r));
    now--;
  };
  return { worked, release, work, max: () => max, busy: () => now };
}

function releaseAll(rec: ReturnType<typeof recorder>): void {
  for (const [id, r] of rec.release) {
    rec.release.delete(id);
    r();
  }
}

afterEach(async () => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
  await Promise.allSettled(open.splice(0).map((q) => within("queue close", q.close(), 20_000)));
});

afterAll(async () => {
  if (!withPg) return;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await c.end();
});

describe.skipIf(!withPg)("PgBossQueue", () => {
  it("should work every enqueued run exactly once across three instances, each within its concurrency", async () => {
    const name = `runs-${randomUUID()}`;
    const recs = [recorder(), recorder(), recorder()];
    const limits = [2, 3, 4];
    const qs = recs.map(() => queue(name));
    const ids = Array.from({ length: 60 }, () => randomUUID());
    // Settle each run shortly after it starts, so the instances overlap and cycle.
    const auto = recs.map((rec) => async (runId: string) => {
      setTimeout(() => rec.release.get(runId)?.(), 20);
      await rec.work(runId);
    });
    await Promise.all(qs.map((q, i) => q.start(auto[i], limits[i])));
    for (const [i, id] of ids.entries()) await qs[i % 3].enqueue(id);
    await until("every run worked", () => recs.reduce((n, r) => n + r.worked.length, 0) >= ids.length, 30_000);
    await until("the queue drained", async () => (await qs[0].depth()) === 0);
    const all = recs.flatMap((r) => r.worked);
    expect(all.sort()).toEqual([...ids].sort());
    recs.forEach((r, i) => expect(r.max()).toBeLessThanOrEqual(limits[i]));
    expect(recs.filter((r) => r.worked.length > 0).length).toBeGreaterThan(1);
  });

  it("should hold one job for a run enqueued twice while it waits, and count it in depth", async () => {
    const name = `runs-${randomUUID()}`;
    const q = queue(name);
    const id = randomUUID();
    await q.enqueue(id);
    await q.enqueue(id);
    expect(await q.depth()).toBe(1);
    const rec = recorder();
    await q.start(rec.work, 2);
    await until("the run worked", () => rec.worked.length === 1);
    releaseAll(rec);
    await until("the queue drained", async () => (await q.depth()) === 0);
    expect(rec.worked).toEqual([id]);
  });

  it("should give the job of a worker that died to another instance once its lease lapsed", async () => {
    const name = `runs-${randomUUID()}`;
    const lease = 10;
    const survivor = queue(name, { leaseSeconds: lease, superviseSeconds: 1, backstopSeconds: 1 });
    await survivor.depth(); // creates the queue before the worker process starts
    const child = spawn(process.execPath, [join(import.meta.dirname, "fixtures", "pgboss-worker.ts")], {
      env: { ...process.env, PGBOSS_URL: url, PGBOSS_SCHEMA: schema, PGBOSS_QUEUE: name, PGBOSS_LEASE: String(lease) },
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(child);
    let out = "";
    child.stdout!.on("data", (b: Buffer) => (out += b.toString()));
    await until("the worker process started", () => out.includes("ready\n"), 20_000);
    const id = randomUUID();
    await survivor.enqueue(id);
    await until("the worker process took the run", () => out.includes(`took ${id}`), 10_000);
    child.kill("SIGKILL");
    const killedAt = Date.now();
    const rec = recorder();
    await survivor.start(rec.work, 1);
    await until("the survivor took the dead worker's run", () => rec.worked.length === 1, (lease + 20) * 1000);
    const waited = Date.now() - killedAt;
    console.log(`pg-boss: a dead worker's job was taken again ${waited} ms after SIGKILL (lease ${lease} s)`);
    expect(rec.worked).toEqual([id]);
    // Not before the lease lapsed; then within a supervise pass and a backstop poll (1 s each).
    expect(waited).toBeGreaterThanOrEqual(lease * 1000 - 1000);
    expect(waited).toBeLessThan((lease + 5) * 1000);
    releaseAll(rec);
  }, 60_000);

  it("should keep the job of a run longer than the lease while its worker lives", async () => {
    const name = `runs-${randomUUID()}`;
    const lease = 10;
    const opts = { leaseSeconds: lease, superviseSeconds: 1, backstopSeconds: 1 };
    const [holder, other] = [queue(name, opts), queue(name, opts)];
    const [held, idle] = [recorder(), recorder()];
    await holder.start(held.work, 1);
    const id = randomUUID();
    await holder.enqueue(id);
    await until("the holder took the run", () => held.worked.length === 1);
    await other.start(idle.work, 1);
    // Past the lease, several supervise passes and backstop polls: a heartbeat keeps the job.
    await new Promise((r) => setTimeout(r, (lease + 5) * 1000));
    expect(idle.worked).toEqual([]);
    releaseAll(held);
    await until("the job completed", async () => (await holder.depth()) === 0);
    expect(idle.worked).toEqual([]);
  }, 40_000);

  it("should take no new job after pause, and close only once the work in flight settled", async () => {
    const name = `runs-${randomUUID()}`;
    const q = queue(name);
    const rec = recorder();
    await q.start(rec.work, 1);
    const first = randomUUID();
    await q.enqueue(first);
    await until("the first run worked", () => rec.worked.length === 1);
    await q.pause();
    const second = randomUUID();
    await q.enqueue(second);
    let closed = false;
    const closing = q.close().then(() => (closed = true));
    // Three polls of 0.5 s: a worker still fetching would have taken the second run.
    await new Promise((r) => setTimeout(r, 1500));
    expect(rec.worked).toEqual([first]);
    expect(closed).toBe(false);
    releaseAll(rec);
    await within("close after the work settled", closing, 20_000);
    const other = queue(name);
    expect(await other.depth()).toBe(1);
    const rec2 = recorder();
    await other.start(rec2.work, 1);
    await until("another instance took the second run", () => rec2.worked.length === 1);
    expect(rec2.worked).toEqual([second]);
    releaseAll(rec2);
  });

  it.each([
    { listenNotify: true, local: true, how: "notify, sender with free workers" },
    { listenNotify: false, local: true, how: "polls only, sender with free workers" },
    { listenNotify: true, local: false, how: "notify, sender without workers" },
    { listenNotify: false, local: false, how: "polls only, sender without workers" },
  ])(
    "should print enqueue → work latency over 200 runs ($how)",
    async (c) => {
      const name = `runs-${randomUUID()}`;
      const opts = { listenNotify: c.listenNotify };
      const [a, b, sender] = [queue(name, opts), queue(name, opts), queue(name, opts)];
      const sentAt = new Map<string, number>();
      const waits: number[] = [];
      const work = async (runId: string) => {
        waits.push(performance.now() - sentAt.get(runId)!);
      };
      await Promise.all([a.start(work, 10), b.start(work, 10)]);
      for (let i = 0; i < 200; i++) {
        const id = randomUUID();
        sentAt.set(id, performance.now());
        await (c.local ? (i % 2 ? b : a) : sender).enqueue(id);
      }
      await until("200 runs worked", () => waits.length === 200, 60_000);
      const sorted = [...waits].sort((x, y) => x - y);
      const p = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1);
      console.log(`pg-boss queue latency enqueue→work, ${c.how}: p50 ${p(0.5)} ms, p99 ${p(0.99)} ms`);
      expect(waits.length).toBe(200);
    },
    90_000,
  );
});
