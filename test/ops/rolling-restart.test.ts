import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freshDatabase, testRunDir } from "../helpers/databases.ts";
import { dispatch } from "../runlog/support.ts";
import { startCluster, withHaproxyServices } from "./haproxy-cluster.ts";

/**
 * A rolling restart behind haproxy loses nothing (docs/deploy.md §3): three `tai serve`
 * processes over one PostgreSQL and Redis, haproxy checking `/ready`, a bounded load of
 * short runs while each instance in turn gets SIGTERM and is started again on its port.
 * Runs longer than the grace: test/ops/rolling-hand-back.test.ts.
 */
const withServices = await withHaproxyServices();

describe.skipIf(!withServices)("a rolling restart behind haproxy", () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("should fail no request and leave every run SUCCEEDED while each instance is restarted in turn", async () => {
    const db = await freshDatabase("postgres");
    cleanup.push(db.drop);
    const cluster = await startCluster(db.url, 3);
    cleanup.push(cluster.close);

    let stop = false;
    const counts = { requests: 0, failed: 0, notSucceeded: 0 };
    const failures: string[] = [];
    const client = async () => {
      while (!stop) {
        counts.requests++;
        try {
          const seconds = 0.05 + Math.random() * 0.25;
          const run = await dispatch(cluster.url, "fenced_probe", {
            marker: join(testRunDir(), `rr-${randomUUID()}`),
            seconds,
          });
          if (run.status !== "SUCCEEDED") {
            counts.notSucceeded++;
            failures.push(JSON.stringify(run));
          }
        } catch (e) {
          counts.failed++;
          failures.push((e as Error).message.slice(0, 300));
        }
      }
    };
    const clients = Array.from({ length: 20 }, client);
    const phases: Record<string, number>[] = [];
    for (let i = 0; i < 3; i++) {
      const before = counts.requests;
      await cluster.restart(i);
      phases.push({ phase: i, requests: counts.requests - before });
    }
    stop = true;
    await Promise.all(clients);
    console.log("rolling restart:", JSON.stringify({ ...counts, phases }));
    if (failures.length) console.log("haproxy's checks:", cluster.checks().join("\n"));
    expect(failures).toEqual([]);
    expect(counts.failed + counts.notSucceeded).toBe(0);
  }, 180_000);
});
