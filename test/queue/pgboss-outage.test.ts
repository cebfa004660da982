import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createLogger, type Logger } from "../../src/log.ts";
import { PgBossQueue } from "../../src/queue/pgboss-queue.ts";
import { pgAdminUrl, requirePostgres } from "../helpers/databases.ts";
import { tcpLink, through, type Link } from "../helpers/tcp-link.ts";
import { until, within } from "../graphql/support.ts";

/**
 * A database outage under the pg-boss queue (docs/run-lifecycle.md §11.3): `enqueue` rejects
 * with an error naming the run and the engine, pg-boss's errors are logged, the process goes
 * on, and the queue works again once the database answers. The outage is real: a TCP link
 * to PostgreSQL that the test cuts (test/helpers/tcp-link.ts).
 */
const withPg = await requirePostgres();
const url = pgAdminUrl();
const schema = `pgboss_test_${randomUUID().replace(/-/g, "").slice(0, 10)}`;
const lines: string[] = [];
const log: Logger = createLogger({}, (line) => lines.push(line));
const open: PgBossQueue[] = [];
const links: Link[] = [];

afterEach(async () => {
  for (const l of links) l.restore();
  await Promise.allSettled(open.splice(0).map((q) => within("queue close", q.close(), 40_000)));
  await Promise.allSettled(links.splice(0).map((l) => l.close()));
});

afterAll(async () => {
  if (!withPg) return;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await c.end();
});

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe.skipIf(!withPg)("PgBossQueue when the database is out", () => {
  it("should reject enqueue naming the run and the engine when the database never answered", async () => {
    const q = new PgBossQueue({
      connectionString: `postgresql://postgres@127.0.0.1:${await closedPort()}/test`,
      log,
      schema,
      connectTimeoutMs: 1000,
    });
    open.push(q);
    const id = randomUUID();
    await expect(within("enqueue to reject", q.enqueue(id), 20_000)).rejects.toThrow(
      new RegExp(`could not queue run ${id} on pg-boss`),
    );
  });

  it("should log pg-boss's errors through an outage, reject enqueue during it, and work again after it", async () => {
    const target = new URL(url);
    const link = await tcpLink(target.hostname, Number(target.port || 5432));
    links.push(link);
    const name = `runs-${randomUUID()}`;
    const q = new PgBossQueue({
      connectionString: through(url, link),
      log,
      schema,
      queueName: name,
      pollSeconds: 0.5,
      backstopSeconds: 1,
      connectTimeoutMs: 1000,
    });
    open.push(q);
    const worked: string[] = [];
    await q.start(async (runId) => void worked.push(runId), 2);
    const before = randomUUID();
    await q.enqueue(before);
    await until("the run before the outage worked", () => worked.includes(before));

    const logged = lines.length;
    link.cut();
    const during = randomUUID();
    await expect(within("enqueue to reject", q.enqueue(during), 20_000)).rejects.toThrow(
      new RegExp(`could not queue run ${during} on pg-boss`),
    );
    // The workers go on polling through the outage: their failures are logged (in episodes: the first at once, then at
    // most one line per 10 s counting the others), not thrown.
    const errors = () => lines.slice(logged).filter((l) => JSON.parse(l).msg === "pg-boss error");
    await until("pg-boss's failures to be logged", () => errors().length > 0, 10_000);

    link.restore();
    const after = randomUUID();
    await until(
      "enqueue succeeded again",
      () =>
        q.enqueue(after).then(
          () => true,
          () => false,
        ),
      30_000,
    );
    await until("the run after the outage worked", () => worked.includes(after), 20_000);
    expect(worked).not.toContain(during);
  }, 90_000);
});
