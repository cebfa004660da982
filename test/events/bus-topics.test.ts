import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { Bus } from "../../src/events/bus.ts";
import { LOCAL_TOPICS, runtimeBus } from "../../src/runtime-topics.ts";
import { redisTestUrl, requireRedis } from "../helpers/databases.ts";
import { redisSubscribed } from "../helpers/redis.ts";

/** A topic map of the test's own: the bus names no payload of the runtime's. */
interface TestTopics {
  shared: { n: number };
  local: { n: number };
}

const redisReady = await requireRedis();

describe("a bus over a topic map of its own", () => {
  const buses: Bus<TestTopics>[] = [];
  const runtimeBuses: Bus[] = [];
  afterEach(async () => {
    await Promise.all([...buses.splice(0), ...runtimeBuses.splice(0)].map((b) => b.close()));
  });

  it("should deliver each payload published on a topic to that topic's listeners only", () => {
    const bus = new Bus<TestTopics>();
    const shared: number[] = [];
    const local: number[] = [];
    bus.listen("shared", (p) => shared.push(p.n));
    bus.listen("local", (p) => local.push(p.n));
    bus.publish("shared", { n: 1 });
    bus.publish("local", { n: 2 });
    expect({ shared, local }).toEqual({ shared: [1], local: [2] });
  });

  it("should keep the runtime's surface-change topic in this process", () => {
    expect(LOCAL_TOPICS).toEqual(["toolsChanged"]);
  });

  it.skipIf(!redisReady)(
    "should make every runtime bus keep toolsChanged in the process that published it while runCancel crosses to the other instance",
    async () => {
      const prefix = `tai42-test-${randomUUID()}:`;
      const a = runtimeBus({ redisUrl: redisTestUrl(), prefix });
      const b = runtimeBus({ redisUrl: redisTestUrl(), prefix });
      runtimeBuses.push(a, b);
      const atB: string[] = [];
      b.listen("toolsChanged", () => atB.push("toolsChanged"));
      const crossed = new Promise<void>((done) =>
        b.listen("runCancel", (p) => {
          atB.push(`runCancel ${p.runId}`);
          done();
        }),
      );
      await redisSubscribed(prefix, ["runCancel"], 1);
      a.publish("toolsChanged", { at: new Date().toISOString() });
      a.publish("runCancel", { runId: "r1" });
      await crossed;
      // Redis keeps one publisher's order: a toolsChanged that had crossed would have arrived first.
      expect(atB).toEqual(["runCancel r1"]);
    },
  );

  it.skipIf(!redisReady)(
    "should carry a topic across instances through Redis, and keep a local topic in the process that published it",
    async () => {
      const prefix = `tai42-test-${randomUUID()}:`;
      const options = { redisUrl: redisTestUrl(), prefix, localTopics: ["local"] as const };
      const a = new Bus<TestTopics>(options);
      const b = new Bus<TestTopics>(options);
      buses.push(a, b);
      const atA: string[] = [];
      const atB: string[] = [];
      // "local" is listened to first: had it gone to Redis, its SUBSCRIBE would precede the other's.
      a.listen("local", (p) => atA.push(`local ${p.n}`));
      b.listen("local", (p) => atB.push(`local ${p.n}`));
      const crossed = new Promise<void>((done) =>
        b.listen("shared", (p) => {
          atB.push(`shared ${p.n}`);
          done();
        }),
      );
      await redisSubscribed(prefix, ["shared"], 1);
      a.publish("local", { n: 1 });
      a.publish("shared", { n: 2 });
      await crossed;
      // Redis keeps one publisher's order: a local event that had crossed would have arrived first.
      expect({ atA, atB }).toEqual({ atA: ["local 1"], atB: ["shared 2"] });
    },
  );
});
