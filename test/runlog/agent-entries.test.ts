import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEventRecord, AgentLogEntry } from "../../src/agent/events.ts";
import { storeAgentRun, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * An agent run submits its entries before the earlier ones are committed
 * (`agent/agent-runner.ts`): the writer must never store an entry after one it failed to
 * store, so a run's stored entries have no gap in seq (docs/agent-stream.md §3).
 */
describe("agent stream entries in the run log", () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await testRuntime();
    await storeAgentRun(rt, "run-a");
  });
  afterEach(() => rt.dispose());

  const delta = (seq: number, text: unknown = `d${seq}`) =>
    ({ type: "message_delta", delta: text, agent: null, seq, runId: "run-a" }) as unknown as AgentEventRecord;

  it("should refuse every entry after one that could not be stored, submitted together, and store the run's end after the last stored entry", async () => {
    // Entry 2 cannot be serialized (a BigInt), so its batch fails; 3 and 4 come after it.
    const results = await Promise.allSettled(
      [1, 2, 3, 4].map((n) => rt.agents.store.appendEvent(n === 2 ? delta(2, 10n) : delta(n))),
    );
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "rejected", "rejected"]);
    const failed = {
      type: "run_failed",
      final: true,
      seq: 2,
      runId: "run-a",
      kind: "INTERNAL",
      message: "could not store",
    } as unknown as AgentLogEntry;
    await rt.agents.store.finish(failed, "FAILED", null);
    expect((await rt.agents.store.events("run-a", 0)).map((e) => e.seq)).toEqual([1, 2]);
    expect((await rt.agents.store.events("run-a", 0))[1]).toMatchObject({ type: "run_failed" });
  });

  it("should store entries submitted together in one batch, in seq order", async () => {
    await Promise.all([1, 2, 3, 4, 5].map((n) => rt.agents.store.appendEvent(delta(n))));
    expect((await rt.agents.store.events("run-a", 0)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(await rt.agents.store.lastSeq("run-a")).toBe(5);
  });

  it("should store an entry whose type holds text no column can store, with the character replaced", async () => {
    await rt.agents.store.appendEvent({ ...delta(1), type: "custom\u0000step" } as unknown as AgentEventRecord);
    expect((await rt.agents.store.events("run-a", 0)).map((e) => e.type)).toEqual(["custom\uFFFDstep"]);
  });
});
