import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { OUTCOME_UNKNOWN_MESSAGE } from "../../src/dispatch/run-redrive.ts";
import { fillSqlite, freeSqlite } from "../helpers/full-sqlite.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until, within } from "../graphql/support.ts";

/**
 * An outcome the database does not take is kept on the instance and stored once it does
 * (docs/run-lifecycle.md §8, "Outcomes after an outage"), on a real SQLite database that
 * is full (`PRAGMA max_page_count`: the engine's own SQLITE_FULL).
 */
describe("outcomes the database did not take", () => {
  const runtimes: TestRuntime[] = [];
  afterEach(async () => {
    for (const rt of runtimes.splice(0).reverse()) await rt.close();
  });

  /**
   * A runtime whose `gated_big` tool starts, waits for `release()`, and returns 20,000 characters (more than a page).
   */
  async function gated(url?: string, config: Record<string, unknown> = {}) {
    const app = new App();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    app.tool(
      { name: "gated_big", description: "Waits for the test, then returns 20,000 characters.", input: z.object({}) },
      async () => {
        await gate;
        return "g".repeat(20_000);
      },
    );
    const rt = await testRuntime({ app, kind: "sqlite", databaseUrl: url, config });
    runtimes.push(rt);
    const req = { tool: "gated_big", input: {}, caller: as("USER"), door: "runtime" as const, idempotencyKey: "k" };
    /** Starts the run, fills the database, lets the body end: resolves with its answer (the outcome was not stored). */
    const runIntoFullDisk = async () => {
      let id!: string;
      const run = rt.dispatcher.run({ ...req, onRun: (runId) => (id = runId) });
      await until("the run to start", async () => id !== undefined && (await rt.db.run.count({ where: { id } })) === 1);
      await fillSqlite(rt.db);
      release();
      return run;
    };
    return { rt, req, runIntoFullDisk };
  }

  const stored = async (rt: TestRuntime, id: string) => rt.db.run.findUniqueOrThrow({ where: { id } });

  it("should answer the computed outcome and a re-issued key from this instance, then store it once writes return, logging one line at the failure and one when stored", async () => {
    const { rt, req, runIntoFullDisk } = await gated();
    const answered = await runIntoFullDisk();
    expect(answered.status).toBe("SUCCEEDED");
    expect((await stored(rt, answered.id)).status).toBe("RUNNING");
    expect(rt.dispatcher.runningIds()).toEqual([answered.id]);
    expect(await within("the re-issued key to be answered", rt.dispatcher.run(req), 2000)).toMatchObject({
      id: answered.id,
      status: "SUCCEEDED",
    });

    // Let several retries fail meanwhile (every ≤ 2 s; not a race: the count below holds however many ran).
    await new Promise((r) => setTimeout(r, 2500));
    await freeSqlite(rt.db);
    await until(
      "the kept outcome to be stored",
      async () => (await stored(rt, answered.id)).status === "SUCCEEDED",
      10_000,
    );
    expect(await rt.db.runEvent.count({ where: { runId: answered.id, type: "RUN_FINISHED" } })).toBe(1);
    expect(rt.dispatcher.runningIds()).toEqual([]);
    const lines = rt.logLines.filter((l) => l.includes(answered.id));
    expect(lines.filter((l) => l.includes("storing the run outcome failed"))).toHaveLength(1);
    expect(lines.filter((l) => l.includes("the kept run outcome was stored"))).toHaveLength(1);
    expect(await rt.dispatcher.run(req)).toMatchObject({ id: answered.id, status: "SUCCEEDED" });
  }, 60_000);

  it("should not overwrite the outcome another instance stored while this one could not write", async () => {
    const { rt, runIntoFullDisk } = await gated();
    const answered = await runIntoFullDisk();
    // Another instance (its own connection, with space) declared this one gone and failed the run.
    const other = await testRuntime({ kind: "sqlite", databaseUrl: rt.config.databaseUrl });
    runtimes.push(other);
    expect(
      (await other.dispatcher.settleOrphans([other.instanceId], () => "declared gone by a test")).events.map(
        (e) => e.runId,
      ),
    ).toEqual([answered.id]);

    await freeSqlite(rt.db);
    await until("this instance to drop the kept outcome", () => rt.dispatcher.runningIds().length === 0, 10_000);
    expect(await stored(rt, answered.id)).toMatchObject({
      status: "OUTCOME_UNKNOWN",
      errorMessage: OUTCOME_UNKNOWN_MESSAGE,
    });
    expect(await rt.db.runEvent.count({ where: { runId: answered.id, type: "RUN_INTERRUPTED" } })).toBe(1);
    expect(await rt.db.runEvent.count({ where: { runId: answered.id, type: "RUN_FINISHED" } })).toBe(0);
  }, 60_000);

  it("should keep trying through the shutdown grace period, log the runs it could not store, and leave them to the next start's sweep", async () => {
    const { rt, runIntoFullDisk } = await gated(undefined, { shutdownGraceSeconds: 1 });
    const answered = await runIntoFullDisk();
    const closing = Date.now();
    await rt.close();
    expect(Date.now() - closing).toBeGreaterThanOrEqual(900);
    expect(
      rt.logLines.filter((l) => l.includes("could not be stored before shutdown") && l.includes(answered.id)),
    ).toHaveLength(1);

    const next = await testRuntime({ kind: "sqlite", databaseUrl: rt.config.databaseUrl });
    runtimes.push(next);
    expect(await stored(next, answered.id)).toMatchObject({
      status: "OUTCOME_UNKNOWN",
      errorMessage: OUTCOME_UNKNOWN_MESSAGE,
    });
    expect(await next.db.run.count({ where: { status: "RUNNING" } })).toBe(0);
  }, 60_000);
});
