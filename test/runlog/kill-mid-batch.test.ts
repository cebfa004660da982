import { afterEach, describe, expect, it } from "vitest";
import { openDb, type Db } from "../../src/db/client.ts";
import { freshDatabase } from "../helpers/databases.ts";
import { until } from "../graphql/support.ts";
import { dispatch, logViolations, readLog, serve, type DispatchedRun, type ServerProcess } from "./support.ts";

/**
 * A server killed (SIGKILL) while a burst of dispatches is being written: whatever batch
 * was in flight is either wholly stored or not at all, and the next process on the same
 * database recovers every run left RUNNING (docs/run-lifecycle.md §8). On SQLite by
 * default, on PostgreSQL with TAI_TEST_DB=postgres.
 */

/** Dispatches kept in flight at once. */
const IN_FLIGHT = 200;
/** Of those, dispatches of a long sleep: certainly RUNNING when the kill comes. */
const LONG = 20;
const LONG_SECONDS = 300;
/** Answers the client must have seen SUCCEEDED before the kill. */
const SUCCEEDED_BEFORE_KILL = 150;

describe("a server killed in the middle of a write burst", () => {
  const servers: ServerProcess[] = [];
  let probe: Db | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.process.stop("SIGKILL");
    await probe?.$disconnect();
    probe = undefined;
    await drop?.();
    drop = undefined;
  });

  it("should leave every stored run finished with its closing event or marked OUTCOME_UNKNOWN by the next process, and every run answered SUCCEEDED stored SUCCEEDED", async () => {
    const db = await freshDatabase();
    drop = db.drop;
    const first = await serve(db.url);
    servers.push(first);
    // Reads the database while the servers write it (a reader, never a runtime: a runtime would recover runs).
    probe = (await openDb(db.url)).db;

    let killed = false;
    const succeeded: DispatchedRun[] = [];
    /**
     * One client slot: dispatches one after the other until the server is gone. A dispatch
     * answered with an error (not this test's subject: see batch-conflict.test.ts) is
     * followed by the next one.
     */
    const slot = async (n: number) => {
      for (let i = 0; !killed; i++) {
        const seconds = n < LONG ? LONG_SECONDS : 0.05 * (1 + ((n + i) % 6));
        const run = await dispatch(first.url, "sleep", { seconds }).catch(() => null);
        if (run?.status === "SUCCEEDED") succeeded.push(run);
      }
    };
    const slots = Array.from({ length: IN_FLIGHT }, (_, n) => slot(n));

    await until(
      `${SUCCEEDED_BEFORE_KILL} answers SUCCEEDED and the ${LONG} long runs RUNNING`,
      async () => succeeded.length >= SUCCEEDED_BEFORE_KILL && (await longRunning(probe!)) >= LONG,
      120_000,
    );
    killed = true;
    await first.process.stop("SIGKILL");
    await Promise.all(slots);

    const second = await serve(db.url);
    servers.push(second);
    await until(
      "no run left RUNNING",
      async () => (await probe!.run.count({ where: { status: "RUNNING" } })) === 0,
      30_000,
    );
    const { runs, events } = await readLog(probe);

    expect(logViolations(runs, events)).toEqual([]);
    const interrupted = runs.filter((r) => r.status === "OUTCOME_UNKNOWN" && r.errorKind === "INTERRUPTED");
    const others = runs.filter((r) => r.status !== "SUCCEEDED" && !interrupted.includes(r));
    expect(others.map((r) => [r.id, r.status, r.errorKind, r.errorMessage])).toEqual([]);
    // The long runs cannot have finished: they were interrupted.
    const long = runs.filter((r) => (r.input as { seconds?: number }).seconds === LONG_SECONDS);
    expect(long.length).toBeGreaterThanOrEqual(LONG);
    expect(long.filter((r) => !interrupted.includes(r)).map((r) => [r.id, r.status])).toEqual([]);

    const stored = new Map(runs.map((r) => [r.id, r]));
    const lost = succeeded.filter((r) => stored.get(r.id)?.status !== "SUCCEEDED");
    expect(lost.map((r) => [r.id, stored.get(r.id)?.status ?? "not stored"])).toEqual([]);

    // The new process serves on the same log.
    expect(await dispatch(second.url, "echo", { text: "after the kill" })).toMatchObject({ status: "SUCCEEDED" });
  }, 240_000);
});

/** How many long sleeps are stored RUNNING (read straight from the database). */
async function longRunning(db: Db): Promise<number> {
  const rows = await db.run.findMany({ where: { status: "RUNNING", tool: "sleep" }, select: { input: true } });
  return rows.filter((r) => (r.input as { seconds?: number }).seconds === LONG_SECONDS).length;
}
