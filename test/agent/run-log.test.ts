import { afterEach, describe, expect, it } from "vitest";
import type { AgentEventRecord, AgentLogEntry } from "../../src/agent/events.ts";
import { SubscriberOverflowError } from "../../src/events/bus.ts";
import { storeAgentRun, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";

/** The replay-then-live log of one run (docs/agent-stream.md §3), driven by hand. */
describe("a run's log", () => {
  let rt: TestRuntime | undefined;
  afterEach(async () => {
    await rt?.dispose();
    rt = undefined;
  });

  const delta = (seq: number, runId = "r1"): AgentEventRecord => ({
    type: "message_delta",
    final: false,
    text: `t${seq}`,
    agent: null,
    seq,
    runId,
  });
  const final = (seq: number, runId = "r1"): AgentEventRecord => ({
    type: "message_final",
    final: true,
    text: "done",
    agent: null,
    seq,
    runId,
  });

  async function setup() {
    rt = await testRuntime();
    await storeAgentRun(rt, "r1");
    return rt;
  }

  async function collect(it: AsyncGenerator<AgentLogEntry>): Promise<number[]> {
    const seqs: number[] = [];
    for await (const e of it) seqs.push(e.seq);
    return seqs;
  }

  it("should fill a gap from the stored log when a live message was lost", async () => {
    const r = await setup();
    const log = r.agents.events("r1", 0, new AbortController().signal);
    const first = log.next();
    await r.agents.store.appendEvent(delta(1));
    r.bus.publish("agentEvent", delta(1));
    expect((await first).value?.seq).toBe(1);
    await r.agents.store.appendEvent(delta(2)); // stored, never published
    await r.agents.store.finish(final(3), "SUCCEEDED", null);
    r.bus.publish("agentEvent", final(3));
    expect(await collect(log)).toEqual([2, 3]);
  });

  it("should drop a live event it already replayed, and events of other runs", async () => {
    const r = await setup();
    await r.agents.store.appendEvent(delta(1));
    await r.agents.store.appendEvent(delta(2));
    const log = r.agents.events("r1", 1, new AbortController().signal);
    const next = log.next();
    r.bus.publish("agentEvent", delta(2));
    r.bus.publish("agentEvent", delta(3, "other"));
    await r.agents.store.finish(final(3), "SUCCEEDED", null);
    r.bus.publish("agentEvent", final(3));
    expect((await next).value?.seq).toBe(2);
    expect(await collect(log)).toEqual([3]);
  });

  it("should end at the terminal without waiting for more", async () => {
    const r = await setup();
    await r.agents.store.appendEvent(delta(1));
    await r.agents.store.finish(final(2), "SUCCEEDED", null);
    expect(await collect(r.agents.events("r1", 0, new AbortController().signal))).toEqual([1, 2]);
    expect(r.bus.listenerCount("agentEvent")).toBe(0);
  });

  it("should close a subscriber that falls behind its bounded buffer with SubscriberOverflowError", async () => {
    const r = await setup();
    const log = r.agents.events("r1", 0, new AbortController().signal);
    const first = log.next();
    r.bus.publish("agentEvent", delta(1));
    await first;
    for (let seq = 2; seq <= 1100; seq++) r.bus.publish("agentEvent", delta(seq));
    const seqs: number[] = [];
    const error = await (async () => {
      try {
        for await (const e of log) seqs.push(e.seq);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(SubscriberOverflowError);
    expect(seqs[0]).toBe(2);
    expect(seqs.length).toBeLessThan(1099);
    expect(r.bus.listenerCount("agentEvent")).toBe(0);
  });

  it("should release its bus listener when aborted while waiting", async () => {
    const r = await setup();
    const controller = new AbortController();
    const log = r.agents.events("r1", 0, controller.signal);
    const next = log.next();
    await until("the log to listen on the bus", () => r.bus.listenerCount("agentEvent") === 1);
    controller.abort();
    await expect(next).resolves.toMatchObject({ done: true });
    expect(r.bus.listenerCount("agentEvent")).toBe(0);
  });
});
