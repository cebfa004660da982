import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { ApiError } from "../../src/errors.ts";
import type { RunRecord } from "../../src/dispatch/run-record.ts";
import { freshDatabase, pgAdminUrl, requirePostgres } from "../helpers/databases.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { tcpLink, through, type Link } from "../helpers/tcp-link.ts";
import { until } from "../graphql/support.ts";

/**
 * A PostgreSQL outage under load (docs/run-lifecycle.md §8, "Outcomes after an outage"):
 * the link to the database is really cut for 20 s while 40 workers dispatch. No run is
 * left RUNNING once it returns, and every re-issued idempotency key, during the cut and
 * after, is answered within 2 s: the outcome, or UNAVAILABLE with a retry time.
 */
const hasPostgres = await requirePostgres();

const CUT_MS = 20_000;
const WORKERS = 40;

describe.skipIf(!hasPostgres)("a 20 s PostgreSQL cut under 40 workers", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("should leave no run RUNNING once the database returns, and answer every re-issued key within 2 s", async () => {
    const db = await freshDatabase("postgres");
    cleanup.push(db.drop);
    const pgUrl = new URL(pgAdminUrl());
    const link: Link = await tcpLink(pgUrl.hostname, Number(pgUrl.port || 5432));
    cleanup.push(link.close);
    const app = new App();
    app.tool(
      { name: "work", description: "Works 100 to 600 ms, then answers.", input: z.object({ n: z.number() }) },
      async ({ n }) => {
        await new Promise((r) => setTimeout(r, 100 + ((n * 37) % 500)));
        return { n };
      },
    );
    const rt: TestRuntime = await testRuntime({ app, databaseUrl: through(db.url, link), config: { dbPool: 20 } });
    cleanup.push(() => rt.close());

    const keys = new Set<string>();
    const slow: string[] = [];
    const wrong: string[] = [];
    let reissues = 0;
    /**
     * Re-issues during the cut answered with an outcome (kept here) and UNAVAILABLE (the first run unknown here, the
     * database unreadable).
     */
    const duringCut = { outcome: 0, unavailable: 0 };
    let maxMs = 0;
    const dispatch = (key: string, n: number) =>
      rt.dispatcher.run({ tool: "work", input: { n }, caller: as("USER"), door: "runtime", idempotencyKey: key });
    /** Re-issues `key`: answered within 2 s with a final outcome, or UNAVAILABLE with a retry time. */
    const reissue = async (key: string, n: number): Promise<RunRecord | null> => {
      const started = Date.now();
      let run: RunRecord | null = null;
      try {
        run = await dispatch(key, n);
        if (!["SUCCEEDED", "FAILED"].includes(run.status)) wrong.push(`${key}: ${run.status}`);
        if (phase === "cut") duringCut.outcome++;
      } catch (e) {
        if (!(e instanceof ApiError && e.code === "UNAVAILABLE" && (e.retryAfterSeconds ?? 0) > 0))
          wrong.push(`${key}: ${String(e)}`);
        if (phase === "cut") duringCut.unavailable++;
        if (phase === "done") wrong.push(`${key} after recovery: ${String(e)}`);
      }
      const ms = Date.now() - started;
      reissues++;
      maxMs = Math.max(maxMs, ms);
      if (ms > 2000) slow.push(`${key}: ${ms} ms`);
      return run;
    };

    let phase: "before" | "cut" | "after" | "done" = "before";
    let stop = false;
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const key = `w${w}-${i}`;
        keys.add(key);
        const first = await dispatch(key, w + i).catch(() => null);
        // The same key again, at once, and during the cut a second time a moment later.
        await reissue(key, w + i);
        if (phase === "cut") await new Promise((r) => setTimeout(r, 500));
        if (phase === "cut") await reissue(key, w + i);
        if (!first) await new Promise((r) => setTimeout(r, 200));
      }
    };
    const workers = Array.from({ length: WORKERS }, (_, w) => worker(w));
    await until("runs to be stored before the cut", async () => (await rt.db.run.count()) >= WORKERS, 20_000);

    phase = "cut";
    link.cut();
    const inFlightAtCut = rt.dispatcher.runningCount;
    await new Promise((r) => setTimeout(r, CUT_MS));
    const keptDuringCut = rt.dispatcher.unstoredOutcomes;
    link.restore();
    phase = "after";
    await new Promise((r) => setTimeout(r, 1000));
    stop = true;
    await Promise.all(workers);
    await until(
      "every kept outcome to be stored",
      () => rt.dispatcher.unstoredOutcomes === 0 && rt.dispatcher.runningCount === 0,
      20_000,
    );

    // After recovery every key is answered with its stored outcome, within 2 s.
    phase = "done";
    const after = [...keys];
    for (let i = 0; i < after.length; i += WORKERS)
      await Promise.all(after.slice(i, i + WORKERS).map((k) => reissue(k, 0)));

    const direct = new pg.Client({ connectionString: db.url });
    await direct.connect();
    try {
      const { rows } = await direct.query<{ status: string }>(`SELECT DISTINCT status FROM "Run"`);
      // No run RUNNING (nor any other state than an outcome): the table itself, not the instance's view.
      expect(rows.map((r) => r.status).filter((s) => s !== "SUCCEEDED" && s !== "FAILED")).toEqual([]);
    } finally {
      await direct.end();
    }
    console.info(
      `[outage] in flight at the cut: ${inFlightAtCut}, outcomes kept during the cut: ${keptDuringCut}, keys: ${keys.size}, re-issues: ${reissues} (during the cut: ${duringCut.outcome} answered the outcome, ${duringCut.unavailable} UNAVAILABLE), slowest: ${maxMs} ms`,
    );
    expect(inFlightAtCut).toBeGreaterThanOrEqual(WORKERS / 2);
    expect(keptDuringCut).toBeGreaterThan(0);
    expect(duringCut.outcome).toBeGreaterThan(0);
    expect(duringCut.unavailable).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
    expect(slow).toEqual([]);
  }, 85_000);
});
