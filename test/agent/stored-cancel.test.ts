import { afterEach, describe, expect, it } from "vitest";
import { freshDatabase } from "../helpers/databases.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { cancelApp, inFlight, waitThenAnswer, type Calls } from "./cancel-support.ts";
import { useScript } from "./support.ts";

/**
 * Cancels through the store (docs/run-lifecycle.md §4, docs/agent-stream.md §4.1): two instances over one database
 * and no bus between them (each has its own in-process bus, as when Redis is cut). A cancel asked on B of a run
 * executing on A is read by A after its next heartbeat, and the run ends CANCELLED there.
 */
const HEARTBEAT_S = 0.5;

describe("a cancel that no bus carries", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function twoInstances(): Promise<{ a: TestRuntime; b: TestRuntime; calls: Calls }> {
    const db = await freshDatabase();
    cleanup.push(db.drop);
    const calls: Calls = { started: [], aborted: [] };
    const a = await testRuntime({ app: cancelApp(calls), databaseUrl: db.url, heartbeatSeconds: HEARTBEAT_S });
    cleanup.push(() => a.close());
    const b = await testRuntime({ app: cancelApp(calls), databaseUrl: db.url, heartbeatSeconds: HEARTBEAT_S });
    cleanup.push(() => b.close());
    return { a, b, calls };
  }

  it("should end CANCELLED on A, at its next heartbeat, a tool run cancelled on B", async () => {
    const { a, b, calls } = await twoInstances();
    let runId = "";
    const running = a.dispatcher.run({
      tool: "wait_8s",
      input: {},
      caller: as("USER"),
      door: "runtime",
      onRun: (id) => (runId = id),
    });
    await inFlight(a, calls);
    const t0 = performance.now();
    const cancelled = await b.dispatcher.cancelFor(as("USER"), runId);
    const tookMs = performance.now() - t0;
    expect(cancelled).toMatchObject({ id: runId, status: "CANCELLED", errorKind: "CANCELLED" });
    expect(await running).toMatchObject({ id: runId, status: "CANCELLED" });
    expect(calls.aborted).toHaveLength(1);
    // One heartbeat and B's poll of the record (at most 1 s), well inside the 8 s the tool would have run.
    expect(tookMs).toBeLessThan(HEARTBEAT_S * 1000 + 1000 + 2000);
  }, 30_000);

  it("should end CANCELLED on A, at its next heartbeat, an agent run cancelled on B, its tool with it", async () => {
    const { a, b, calls } = await twoInstances();
    useScript(a.agents, "s", waitThenAnswer);
    const started = await a.agents.start({
      options: { userMessage: "wait", llmProvider: "s", toolNames: ["wait_8s"] },
      caller: as("USER"),
    });
    await inFlight(a, calls);
    const ended = await b.agents.cancelFor(started.runId, as("USER"));
    expect(ended.status).toBe("CANCELLED");
    expect(calls.aborted).toHaveLength(1);
    expect((await a.runs.list({ tool: "wait_8s" }, 10)).map((r) => r.status)).toEqual(["CANCELLED"]);
  }, 30_000);
});
