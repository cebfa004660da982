import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { Client } from "graphql-ws";
import { freshDatabase, redisTestUrl, requirePostgres, requireRedis, testDbKind } from "../helpers/databases.ts";
import { collect, RUN_EVENTS, until, wsClient, type RunEventData } from "../graphql/support.ts";
import { openDb, type Db } from "../../src/db/client.ts";
import { dispatch, readLog, serve, type ServerProcess } from "./support.ts";

/**
 * Two server processes writing one run log (one database, one Redis), and one graphql-ws
 * client that keeps resuming `runEvents` from the last seq it received, each time on the
 * other instance (docs/run-lifecycle.md §6): over the whole session it must receive the
 * log exactly as stored, every event once, in seq order. Needs Redis (live events cross
 * instances through it) and, under TAI_TEST_DB=postgres, PostgreSQL; under CI=true a
 * missing one fails this file, elsewhere it is skipped.
 */
const ready = (testDbKind() !== "postgres" || (await requirePostgres())) && (await requireRedis());

/** Resumptions of the subscription, alternating between the instances. */
const RESUMES = 100;
/**
 * Events stored after a connection was opened that it must receive before the client
 * drops it and resumes on the other instance: every connection gets live events, not
 * only the replay of what happened while the client was away.
 */
const NEW_EVENTS_PER_CONNECTION = 8;
/** Dispatch loops running at once, each alternating between the instances. */
const WRITERS = 6;

/** Compares what the client received with the stored log: every mismatch, summarized. */
function compare(received: number[], stored: number[]) {
  const storedSet = new Set(stored);
  const seen = new Set<number>();
  const duplicates: number[] = [];
  const outOfOrder: [number, number][] = [];
  received.forEach((seq, i) => {
    if (seen.has(seq)) duplicates.push(seq);
    seen.add(seq);
    if (i > 0 && seq <= received[i - 1]) outOfOrder.push([received[i - 1], seq]);
  });
  const missing = stored.filter((s) => !seen.has(s));
  return {
    received: received.length,
    stored: stored.length,
    duplicates: duplicates.slice(0, 10),
    duplicateCount: duplicates.length,
    outOfOrder: outOfOrder.slice(0, 10),
    outOfOrderCount: outOfOrder.length,
    missing: missing.slice(0, 10),
    missingCount: missing.length,
    notStored: [...seen].filter((s) => !storedSet.has(s)).slice(0, 10),
  };
}

describe.skipIf(!ready)("resuming runEvents across two instances that both write", () => {
  const servers: ServerProcess[] = [];
  const clients: Client[] = [];
  let probe: Db | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.dispose();
    for (const s of servers.splice(0)) await s.process.stop("SIGKILL");
    await probe?.$disconnect();
    probe = undefined;
    await drop?.();
    drop = undefined;
  });

  it(`should deliver every stored event exactly once and in seq order to a client that resumes ${RESUMES} times from its last seq, alternately on each instance, while both instances dispatch`, async () => {
    const db = await freshDatabase();
    drop = db.drop;
    const env = { REDIS_URL: redisTestUrl(), TAI_REDIS_PREFIX: `tai42-test-${randomUUID()}:` };
    const instances = await Promise.all([serve(db.url, env), serve(db.url, env)]);
    servers.push(...instances);
    // Reads the log as stored, next to the servers.
    probe = (await openDb(db.url)).db;
    const latestSeq = async () =>
      (await probe!.runEvent.findFirst({ orderBy: { seq: "desc" }, select: { seq: true } }))?.seq ?? 0;

    // Writers: echo runs, and retried runs (RUN_STARTED, ATTEMPT_FAILED, RUN_FINISHED), on both instances in turn.
    let writing = true;
    let dispatched = 0;
    const writeErrors: string[] = [];
    const writer = async (w: number) => {
      for (let i = 0; writing; i++) {
        const url = instances[(w + i) % 2].url;
        try {
          const run =
            i % 4 === 3
              ? await dispatch(url, "flaky", { failures: 1 })
              : await dispatch(url, "echo", { text: `w${w}-${i}` });
          if (run.status === "SUCCEEDED") dispatched++;
          else writeErrors.push(`${run.status} ${run.errorKind} ${run.errorMessage}`);
        } catch (e) {
          writeErrors.push(String(e));
        }
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));

    // The client: connection 0 replays the log from its start; each resumption starts after the last seq received.
    const received: number[] = [];
    const connect = async (n: number, enough: (got: number[]) => boolean) => {
      const client = wsClient(instances[n % 2].url);
      clients.push(client);
      const sub = collect<RunEventData>(client, RUN_EVENTS, { afterSeq: received.at(-1) ?? 0 });
      try {
        await until(
          `connection ${n} to receive its events`,
          () => enough(sub.data.map((d) => d.runEvents.seq)) || sub.errors.length > 0 || sub.completed,
          30_000,
        );
      } finally {
        sub.stop();
      }
      // What the client received on this connection is what arrived before it let go.
      received.push(...sub.data.map((d) => d.runEvents.seq));
      expect(sub.errors).toEqual([]);
      await client.dispose();
    };

    for (let n = 0; n < RESUMES; n++) {
      const before = await latestSeq();
      await connect(n, (got) => got.filter((seq) => seq > before).length >= NEW_EVENTS_PER_CONNECTION);
    }
    writing = false;
    await Promise.all(writers);

    // The last resumption, once every dispatch has finished: it catches up with the whole stored log.
    const stored = (await readLog(probe)).events.map((e) => e.seq);
    const remaining = stored.filter((s) => s > (received.at(-1) ?? 0)).length;
    await connect(RESUMES, (got) => got.length >= remaining);

    expect(dispatched).toBeGreaterThan(RESUMES);
    expect(compare(received, stored)).toEqual({
      received: stored.length,
      stored: stored.length,
      duplicates: [],
      duplicateCount: 0,
      outOfOrder: [],
      outOfOrderCount: 0,
      missing: [],
      missingCount: 0,
      notStored: [],
    });
    expect(writeErrors).toEqual([]);
  }, 240_000);
});
