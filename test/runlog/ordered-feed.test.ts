import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newRun, type RunEventRecord } from "../../src/dispatch/run-record.ts";
import { Bus } from "../../src/events/bus.ts";
import { createLogger } from "../../src/log.ts";
import { OrderedRunEvents } from "../../src/runlog/ordered-feed.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";

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
    feed = new OrderedRunEvents(bus, rt.runs, createLogger({}, () => {}));
    await feed.whenReady();
  });
  afterEach(async () => {
    feed.close();
    await rt.dispose();
  });

  /** Writes `n` runs' RUN_STARTED events to the log (not published anywhere). */
  const written = async (n: number): Promise<RunEventRecord[]> => {
    const out: RunEventRecord[] = [];
    for (let i = 0; i < n; i++) out.push((await rt.runs.start(newRun({ tool: "t", input: {}, door: "runtime", callerRole: "USER", callerKey: null }), null, rt.instanceId))!);
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
