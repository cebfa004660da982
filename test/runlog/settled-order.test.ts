import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import { replayThenLive } from "../../src/dispatch/run-events.ts";
import { newRun, type RunEventRecord } from "../../src/dispatch/run-record.ts";
import { Bus } from "../../src/events/bus.ts";
import { createLogger } from "../../src/log.ts";
import { OrderedRunEvents, type RunEventSource } from "../../src/runlog/ordered-feed.ts";
import { freshDatabase, requirePostgres } from "../helpers/databases.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until, within } from "../graphql/support.ts";

/**
 * The run event log's order without a deployment-wide lock (docs/run-lifecycle.md §9 "Sequence and commit order"):
 * on PostgreSQL another instance's writer may hold a lower seq, uncommitted, while this instance's higher one is
 * committed and published. The feed and the replay must neither deliver the higher one first nor step over the
 * lower one while its writer can still commit it.
 */
const onPg = process.env.TAI_TEST_DB === "postgres" && (await requirePostgres());

/** Another instance's writer: a transaction registered on the event log, with one event inserted and not committed. */
async function openWriter(url: string): Promise<{ client: pg.Client; seq: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("BEGIN");
  await client.query(
    `INSERT INTO "Run" ("id","tool","status","content","door","callerRole","instanceId") VALUES ('other-run','t','RUNNING','[]','runtime','USER','other-instance')`,
  );
  await client.query(`SELECT pg_advisory_xact_lock_shared(hashtext('tai42:RunEvent'))`);
  const { rows } = await client.query<{ seq: number }>(
    `INSERT INTO "RunEvent" ("runId","tool","type","snapshot") VALUES ('other-run','t','RUN_STARTED','{}') RETURNING "seq"`,
  );
  return { client, seq: rows[0]!.seq };
}

describe.runIf(onPg)("the run event log's settled order on PostgreSQL", () => {
  let rt: TestRuntime | undefined;
  let other: pg.Client | undefined;
  let feed: OrderedRunEvents | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    feed?.close();
    await other?.end().catch(() => {});
    await rt?.dispose();
    await drop?.();
    rt = other = feed = drop = undefined;
  });

  /** A runtime on a fresh database, and a feed over its store that counts its looks at the registered writers. */
  const setUp = async () => {
    const db = await freshDatabase("postgres");
    drop = db.drop;
    rt = await testRuntime({ databaseUrl: db.url, kind: "postgres" });
    const runs = rt.runs;
    const looks = { writers: 0 };
    const source: RunEventSource = {
      between: (after, upTo, limit) => runs.between(after, upTo, limit),
      lastSeq: () => runs.lastSeq(),
      writers: () => {
        looks.writers++;
        return runs.writers();
      },
    };
    const bus = new Bus();
    feed = new OrderedRunEvents(
      bus,
      source,
      createLogger({}, () => {}),
    );
    await feed.whenReady();
    const start = async (): Promise<RunEventRecord> =>
      (await runs.start(
        newRun({ tool: "t", input: {}, door: "runtime", callerRole: "USER", callerKey: null }),
        null,
        rt!.instanceId,
      ))!;
    return { url: db.url, bus, looks, start, feed };
  };

  it("should commit this instance's batch while another instance's writer is still open, and deliver that writer's lower seq first once it commits", async () => {
    const { url, bus, looks, start, feed } = await setUp();
    const writer = await openWriter(url);
    other = writer.client;
    // With the exclusive lock of earlier versions this write waited for the other transaction's commit.
    const mine = await within("this instance's batch to commit beside the open writer", start(), 10_000);
    expect(mine.seq).toBeGreaterThan(writer.seq);

    const got: number[] = [];
    const sub = feed.subscribe();
    const reading = (async () => {
      for await (const e of sub) if (got.push(e.seq) === 2) return;
    })();
    bus.publish("runEvent", mine);
    await until("the feed to wait on the open writer", () => looks.writers >= 2);
    expect(got).toEqual([]);
    await writer.client.query("COMMIT");
    await within("both events to be delivered", reading, 10_000);
    expect(got).toEqual([writer.seq, mine.seq]);
  });

  it("should step over the seq of a writer that rolled back, and only once it has ended", async () => {
    const { url, bus, looks, start, feed } = await setUp();
    const writer = await openWriter(url);
    other = writer.client;
    const mine = await start();
    const later = await start();
    const got: number[] = [];
    const sub = feed.subscribe();
    const reading = (async () => {
      for await (const e of sub) if (got.push(e.seq) === 2) return;
    })();
    bus.publish("runEvent", later);
    bus.publish("runEvent", mine);
    await until("the feed to wait on the open writer", () => looks.writers >= 2);
    expect(got).toEqual([]);
    await writer.client.query("ROLLBACK");
    await within("the committed events to be delivered", reading, 10_000);
    expect(got).toEqual([mine.seq, later.seq]);
  });

  it("should not replay a stored event that lies past another writer's uncommitted seq, and deliver both in order once it commits", async () => {
    const { url, bus, looks, start, feed } = await setUp();
    const writer = await openWriter(url);
    other = writer.client;
    const mine = await start();
    // A client resuming from 0: the store already holds `mine`, the other writer's lower seq is not visible yet.
    const controller = new AbortController();
    const got: number[] = [];
    const reading = (async () => {
      for await (const e of replayThenLive({ runFeed: feed, runs: rt!.runs }, {}, 0, controller.signal, as("ADMIN")))
        if (got.push(e.seq) === 2) return;
    })();
    bus.publish("runEvent", mine);
    await until("the feed to wait on the open writer", () => looks.writers >= 2);
    expect(got).toEqual([]);
    await writer.client.query("COMMIT");
    await within("both events to be delivered", reading, 10_000);
    controller.abort();
    expect(got).toEqual([writer.seq, mine.seq]);
  });
});

/** Every file under `dir` ending in `.ts`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory()
      ? name === "generated"
        ? []
        : sources(path)
      : path.endsWith(".ts")
        ? [path]
        : [];
  });
}

describe("the run event log's writers", () => {
  it("should register as event-log writers in every source file that inserts run events on PostgreSQL", () => {
    // SQLite has one writer at a time (`runlog/sqlite-log.ts` needs no registration).
    const inserting = sources("src").filter((path) => {
      const text = readFileSync(path, "utf8");
      return /INSERT INTO "RunEvent"|runEvent\.(create|createMany|upsert)\(/.test(text);
    });
    expect(inserting.length).toBeGreaterThan(0);
    const unregistered = inserting.filter(
      (path) =>
        !path.endsWith("sqlite-log.ts") &&
        !/REGISTER_EVENT_WRITER_SQL|registerEventWriter\(/.test(readFileSync(path, "utf8")),
    );
    expect(unregistered).toEqual([]);
  });
});
