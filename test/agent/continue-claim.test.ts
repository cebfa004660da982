import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import type { ScriptView, ScriptedTurn } from "../../src/agent/providers/scripted-model.ts";
import { requirePostgres, testDbKind } from "../helpers/databases.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";
import { useScript } from "./support.ts";

/**
 * Continuation on another instance, in one process (docs/agent-stream.md §4.3): runtime B claims a run of runtime A
 * as if A were gone while A's model turn is in flight; B continues it from its checkpoint (the completed turn and
 * its tool result are not done again; the turn in flight is called again), and A, still alive, writes nothing more
 * and is stopped by its next heartbeat (owner fencing). Both beat at the same pace: an instance judges another's
 * liveness by its own TAI_DEAD_AFTER_SECONDS (3 beats here), and a slower-beating B would look gone to A, which would
 * claim the run back. Runs on the database TAI_TEST_DB selects.
 */
const ready = testDbKind() !== "postgres" || (await requirePostgres());

const LONG = Array.from({ length: 400 }, (_, i) => `w${i}`).join(" ");

describe.skipIf(!ready)("an agent run claimed by another instance", () => {
  const runtimes: TestRuntime[] = [];
  afterEach(async () => {
    for (const rt of runtimes.splice(0).reverse()) await rt.close();
  });

  it("should continue there from its checkpoint, the turn in flight called again, and its old owner write nothing", async () => {
    const bodies: string[] = [];
    const calls = new Map<number, number>();
    const appWith = () => {
      const app = new App();
      app.tool({ name: "note", description: "Notes n.", input: z.object({ n: z.number() }) }, async ({ n }) => {
        bodies.push(`note ${n}`);
        return `noted ${n}`;
      });
      return app;
    };
    // The turn is the count of assistant messages the model is shown: the same whichever instance calls it.
    const script = (view: ScriptView): ScriptedTurn => {
      const turn = view.prompt.filter((m) => m.role === "assistant").length;
      calls.set(turn, (calls.get(turn) ?? 0) + 1);
      return turn === 0 ? { toolCalls: [{ toolName: "note", input: { n: 1 }, id: "c0" }] } : { text: LONG };
    };
    const a = await testRuntime({ app: appWith(), heartbeatSeconds: 0.5 });
    runtimes.push(a);
    const b = await testRuntime({ app: appWith(), databaseUrl: a.config.databaseUrl, heartbeatSeconds: 0.5 });
    runtimes.push(b);
    useScript(a.agents, "claimed", script, 20);
    useScript(b.agents, "claimed", script);

    const started = await a.agents.start({
      options: { userMessage: "go", toolNames: ["note"], llmProvider: "claimed" },
      caller: as("USER"),
    });
    await until("A to be in its second model turn", () => calls.get(1) === 1, 20_000);
    const before = await b.agents.store.events(started.runId, 0);
    // A joiner on B, from where the stream stood before the claim.
    const joined: { seq: number; type: string }[] = [];
    const joining = (async () => {
      for await (const e of b.agents.events(started.runId, before.length, new AbortController().signal)) joined.push(e);
    })();

    // B sweeps as if A were gone: it claims the run (one claimant: a second claim finds it taken).
    expect(await b.agents.continueInterrupted([b.instanceId])).toEqual([started.runId]);
    expect(await b.agents.continueInterrupted([b.instanceId])).toEqual([]);
    await until(
      "B to finish the run",
      async () => (await b.agents.store.get(started.runId))?.status === "SUCCEEDED",
      20_000,
    );
    await until("A's heartbeat to stop its copy of the run", () => a.agents.runningCount === 0, 20_000);

    // The completed turn and its tool result were not done again; the turn in flight was called again by B.
    expect(Object.fromEntries(calls)).toEqual({ 0: 1, 1: 2 });
    expect(bodies).toEqual(["note 1"]);
    const log = await b.agents.store.events(started.runId, 0);
    expect(log.slice(0, before.length)).toEqual(before);
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
    expect(log.filter((e) => e.type === "tool_result_step")).toHaveLength(1);
    expect(log.filter((e) => e.final)).toEqual([expect.objectContaining({ type: "message_final", text: LONG })]);
    expect(log.some((e) => e.type === "run_failed")).toBe(false);
    // The joiner saw the rest of the stream: no gap, no duplicate.
    await joining;
    expect(joined.map((e) => e.seq)).toEqual(log.slice(before.length).map((e) => e.seq));
    const run = await b.agents.store.get(started.runId);
    expect((run?.checkpoint as { instanceId?: string } | null)?.instanceId).toBeUndefined();
    expect(run?.usage.totalTokens).toBeGreaterThan(0);
  }, 60_000);

  it("should give the model an INTERRUPTED error for a call in flight whose tool run's outcome is unknown", async () => {
    const holds: string[] = [];
    const appWith = () => {
      const app = new App();
      app.tool(
        { name: "hold", description: "Waits until aborted.", input: z.object({}), timeoutSeconds: 120 },
        async (_input, ctx) => {
          holds.push("hold");
          await new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)));
          return "held";
        },
      );
      return app;
    };
    let shown: unknown = null;
    const script = (view: ScriptView): ScriptedTurn => {
      const turn = view.prompt.filter((m) => m.role === "assistant").length;
      if (turn === 0) return { toolCalls: [{ toolName: "hold", input: {}, id: "h0" }] };
      shown = view.prompt.find((m) => m.role === "tool");
      return { text: "noted" };
    };
    const a = await testRuntime({ app: appWith(), heartbeatSeconds: 0.5 });
    runtimes.push(a);
    const b = await testRuntime({ app: appWith(), databaseUrl: a.config.databaseUrl, heartbeatSeconds: 0.5 });
    runtimes.push(b);
    useScript(a.agents, "held", script);
    useScript(b.agents, "held", script);
    const started = await a.agents.start({
      options: { userMessage: "go", toolNames: ["hold"], llmProvider: "held" },
      caller: as("USER"),
    });
    let toolRunId = "";
    await until("the checkpoint to name the call's tool run", async () => {
      const cp = (await b.agents.store.get(started.runId))?.checkpoint as {
        progress?: { batch?: { toolRuns?: Record<string, string> } };
      };
      toolRunId = cp?.progress?.batch?.toolRuns?.h0 ?? "";
      return Boolean(toolRunId);
    });
    // The sweep's part for tool runs: a non-idempotent call whose owner died has an unknown outcome (§11.4).
    await b.dispatcher.settleOrphans([b.instanceId], () => "declared gone by a test");
    expect((await b.runs.get(toolRunId))?.status).toBe("OUTCOME_UNKNOWN");
    expect(await b.agents.continueInterrupted([b.instanceId])).toEqual([started.runId]);
    await until("B to finish the run", async () => (await b.agents.store.get(started.runId))?.status === "SUCCEEDED");
    expect(holds).toEqual(["hold"]);
    expect(JSON.stringify(shown)).toContain("INTERRUPTED");
    const log = await b.agents.store.events(started.runId, 0);
    expect(log.filter((e) => e.type === "tool_result_step")).toEqual([
      expect.objectContaining({
        callId: "h0",
        isError: true,
        result: expect.objectContaining({ kind: "INTERRUPTED" }),
      }),
    ]);
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
    await until("A's heartbeat to stop its copy of the run", () => a.agents.runningCount === 0, 20_000);
  }, 60_000);
});
