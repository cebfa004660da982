import { afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import { newRun, type RunRecord } from "../../src/dispatch/run-record.ts";
import { scopeKey } from "../../src/db/storable.ts";
import { freshDatabase, requirePostgres } from "../helpers/databases.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";

/**
 * On PostgreSQL a batch of the run log is one statement that writes runs (taking row and
 * unique-index locks) and then takes the event-log lock (docs/run-lifecycle.md §9,
 * `runlog/pg-log.ts`). Another instance's batch, and the orphan sweep, take those locks
 * in the same order: its rows, then the event-log lock. A batch that took the event-log
 * lock before its own row writes would wait on another instance's row while holding the
 * lock that instance needs next: a deadlock.
 */
const onPg = process.env.TAI_TEST_DB === "postgres" && (await requirePostgres());

describe.runIf(onPg)("the run log's lock order on PostgreSQL", () => {
  let rt: TestRuntime | undefined;
  let other: pg.Client | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await other?.end().catch(() => {});
    await rt?.dispose();
    await drop?.();
    rt = other = drop = undefined;
  });

  it("should write a batch that settles a run then starts one whose idempotency scope another instance is inserting without deadlocking that instance when it takes the event-log lock", async () => {
    const db = await freshDatabase("postgres");
    drop = db.drop;
    rt = await testRuntime({ databaseUrl: db.url, kind: "postgres" });
    const running: RunRecord = {
      ...newRun({ tool: "t", input: {}, door: "runtime", callerRole: "USER", callerKey: null }),
      tier: "read",
    };
    await rt.runs.start(running, null, rt.instanceId);

    // Another instance's batch, stopped between its row writes and the event-log lock:
    // it has inserted a run with the scope "shared" and not committed.
    other = new pg.Client({ connectionString: db.url });
    await other.connect();
    await other.query("BEGIN");
    // Its deadlock check runs first, so a deadlock fails it (not the batch under test, which would be retried).
    await other.query("SET LOCAL deadlock_timeout = '10ms'");
    await other.query(
      `INSERT INTO "Run" ("id","tool","status","content","door","callerRole","instanceId","idempotencyScope") VALUES ('other-run','t','RUNNING','[]','runtime','USER','other-instance',$1)`,
      [scopeKey("shared")],
    );

    // One batch: the settle of `running`, then a start with the same scope.
    const done: RunRecord = { ...running, status: "SUCCEEDED", finishedAt: new Date().toISOString() };
    const second: RunRecord = {
      ...newRun({ tool: "t", input: {}, door: "runtime", callerRole: "USER", callerKey: null }),
      tier: "read",
    };
    const batch = Promise.all([rt.runs.finish(done, null), rt.runs.start(second, "shared", rt.instanceId)]);
    await until("the batch to wait on the other instance's uncommitted scope", async () => {
      const { rows } = await other!.query(
        "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
      );
      return rows.length > 0;
    });

    // The other instance's batch goes on: it takes the event-log lock, writes its event, commits.
    await other.query(`SELECT pg_advisory_xact_lock(hashtext('tai42:RunEvent'))`);
    await other.query(
      `INSERT INTO "RunEvent" ("runId","tool","type","snapshot") VALUES ('other-run','t','RUN_STARTED','{}')`,
    );
    await other.query("COMMIT");

    const [finished, started] = await batch;
    expect(finished.type).toBe("RUN_FINISHED");
    expect(started).toBeNull();
    expect((await rt.runs.byScope("shared"))?.id).toBe("other-run");
  });

  it("should insert the runs of a batch in idempotency-scope order, so that two instances taking the same two scopes never wait on each other", async () => {
    const db = await freshDatabase("postgres");
    drop = db.drop;
    rt = await testRuntime({ databaseUrl: db.url, kind: "postgres" });
    const [lo, hi] = ["first", "second"].sort((a, b) => (scopeKey(a) < scopeKey(b) ? -1 : 1));

    // Another instance's batch holding both scopes, inserting in scope order: it has the lower one.
    other = new pg.Client({ connectionString: db.url });
    await other.connect();
    await other.query("BEGIN");
    await other.query("SET LOCAL deadlock_timeout = '10ms'");
    const insert = (id: string, scope: string) =>
      other!.query(
        `INSERT INTO "Run" ("id","tool","status","content","door","callerRole","instanceId","idempotencyScope") VALUES ($1,'t','RUNNING','[]','runtime','USER','other-instance',$2)`,
        [id, scopeKey(scope)],
      );
    await insert("other-lo", lo);

    // This instance's batch is given the same scopes the other way round.
    const fresh = (): RunRecord => ({
      ...newRun({ tool: "t", input: {}, door: "runtime", callerRole: "USER", callerKey: null }),
      tier: "read",
    });
    const batch = Promise.all([rt.runs.start(fresh(), hi, rt.instanceId), rt.runs.start(fresh(), lo, rt.instanceId)]);
    await until("the batch to wait on the other instance's uncommitted scope", async () => {
      const { rows } = await other!.query(
        "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
      );
      return rows.length > 0;
    });
    await insert("other-hi", hi);
    await other.query("COMMIT");

    expect(await batch).toEqual([null, null]);
    expect([(await rt.runs.byScope(lo))?.id, (await rt.runs.byScope(hi))?.id]).toEqual(["other-lo", "other-hi"]);
  });
});
