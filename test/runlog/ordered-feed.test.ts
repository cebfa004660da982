import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newRun, type RunEventRecord } from "../../src/dispatch/run-record.ts";
import { Bus } from "../../src/events/bus.ts";
import { createLogger } from "../../src/log.ts";
import { FeedGapError, MAX_HELD_ON_FAILURE, OrderedRunEvents } from "../../src/runlog/ordered-feed.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until, within } from "../graphql/support.ts";

/**
 * The ordered feed over a real store: events written to the log, then published on a bus
 * of their own out of order, with some never published (pub/sub is at most once).
 */
describe("the ordered run event feed", () => {
  let rt: TestRuntime;
  let bus: Bus;
  let feed: OrderedRunEvents;
  beforeEach(async () => {
    rt = await testRuntime();
    bus = new Bus();
    feed = new OrderedRunEvents(
      bus,
      rt.runs,
      createLogger({}, () => {}),
    );
    await feed.whenReady();
  });
  afterEach(async () => {
    feed.close();
    await rt.dispose();
  });

  /** Writes `n` runs' RUN_STARTED events to the log (not published anywhere). */
  const written = async (n: number): Promise<RunEventRecord[]> => {
    const out: RunEventRecord[] = [];
    for (let i = 0; i < n; i++)
      out.push(
        (await rt.runs.start(
          newRun({ tool: "t", input: {}, door: "runtime", callerRole: "USER", callerKey: null }),
          null,
          rt.instanceId,
        ))!,
      );
    return out;
  };

  it("should deliver events published out of order in seq order, each once", async () => {
    const events = await written(6);
    const got: number[] = [];
    const sub = feed.subscribe();
    const reading = (async () => {
      for await (const e of sub) if (got.push(e.seq) === 6) return;
    })();
    for (const i of [1, 0, 3, 2, 5, 4, 3, 1]) bus.publish("runEvent", events[i]);
    await reading;
    expect(got).toEqual(events.map((e) => e.seq));
  });

  it("should fill an event that was never published from the store, in its place", async () => {
    const events = await written(5);
    const got: number[] = [];
    const sub = feed.subscribe();
    const reading = (async () => {
      for await (const e of sub) if (got.push(e.seq) === 5) return;
    })();
    for (const i of [0, 2, 4]) bus.publish("runEvent", events[i]);
    await reading;
    expect(got).toEqual(events.map((e) => e.seq));
  });

  it("should count its subscribers as the bus's listeners, and none once they leave", async () => {
    const controller = new AbortController();
    feed.subscribe({ signal: controller.signal });
    feed.subscribe({ signal: controller.signal });
    expect(bus.listenerCount("runEvent")).toBe(2);
    controller.abort();
    await until("the subscribers to leave", () => bus.listenerCount("runEvent") === 0);
  });
});

describe("the ordered run event feed with a long gap", () => {
  it("should step over a seq that will never exist and deliver every event held behind it, however many arrived meanwhile", async () => {
    // Seq 1 will never exist (a batch rolled back on PostgreSQL consumed it): every later
    // event is held until the gap is read from the store. A busy cluster sends well over
    // 100,000 events in the minute a slow store read or a lost Redis can hold a gap open.
    const count = 150_000;
    const run = newRun({ tool: "t", input: {}, door: "runtime", callerRole: "USER", callerKey: null });
    const event = (seq: number): RunEventRecord => ({
      seq,
      type: "RUN_STARTED",
      at: run.startedAt,
      runId: run.id,
      tool: "t",
      run,
    });
    const source = {
      lastSeq: async () => 0,
      between: async (after: number, upTo: number, limit: number) => {
        const out: RunEventRecord[] = [];
        for (let s = Math.max(after + 1, 2); s <= upTo && out.length < limit; s++) out.push(event(s));
        return out;
      },
    };
    const bus = new Bus();
    const feed = new OrderedRunEvents(
      bus,
      source,
      createLogger({}, () => {}),
    );
    try {
      await feed.whenReady();
      const got: number[] = [];
      const sub = feed.subscribe({ filter: (e) => e.seq === 2 || e.seq === count });
      const reading = (async () => {
        for await (const e of sub) if (got.push(e.seq) === 2) return;
      })();
      for (let seq = 2; seq <= count; seq++) bus.publish("runEvent", event(seq));
      await within("the held events to be delivered", reading, 20_000);
      expect(got).toEqual([2, count]);
    } finally {
      feed.close();
    }
  });
});

describe("the ordered run event feed when the store cannot be read", () => {
  it("should close its subscribers with an error naming the seq to replay from, and hold no more than its bound", async () => {
    // Seq 1 was never published and the store is down: every later event is held behind
    // the gap. Past the bound the subscribers are closed (they replay from the store by
    // afterSeq later) and the feed steps over the gap instead of growing without end.
    const run = newRun({ tool: "t", input: {}, door: "runtime", callerRole: "USER", callerKey: null });
    const event = (seq: number): RunEventRecord => ({
      seq,
      type: "RUN_STARTED",
      at: run.startedAt,
      runId: run.id,
      tool: "t",
      run,
    });
    const source = {
      lastSeq: async () => 0,
      between: async (): Promise<RunEventRecord[]> => Promise.reject(new Error("the store is down")),
    };
    const bus = new Bus();
    const feed = new OrderedRunEvents(
      bus,
      source,
      createLogger({}, () => {}),
    );
    try {
      await feed.whenReady();
      const sub = feed.subscribe();
      const outcome = (async () => {
        try {
          for await (const e of sub) return `delivered ${e.seq}`;
          return "ended";
        } catch (e) {
          return e instanceof FeedGapError ? `closed from ${e.from} (${e.code})` : String(e);
        }
      })();
      let seq = 2;
      const publishUntilClosed = async () => {
        while (bus.listenerCount("runEvent") > 0 && seq < 10 * MAX_HELD_ON_FAILURE) {
          for (let i = 0; i < 1000; i++) bus.publish("runEvent", event(seq++));
          await new Promise((r) => setImmediate(r));
        }
      };
      await within("the feed to close its subscriber", Promise.all([outcome, publishUntilClosed()]), 20_000);
      expect(await outcome).toBe("closed from 1 (EVENTS_UNAVAILABLE)");
      expect(seq).toBeLessThan(10 * MAX_HELD_ON_FAILURE);
      const late: number[] = [];
      const again = feed.subscribe();
      const reading = (async () => {
        for await (const e of again) if (late.push(e.seq) === 2) return;
      })();
      bus.publish("runEvent", event(seq));
      bus.publish("runEvent", event(seq + 1));
      await within("a new subscriber to get live events after the gap", reading);
      expect(late).toEqual([seq, seq + 1]);
    } finally {
      feed.close();
    }
  });
});
