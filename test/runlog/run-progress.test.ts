import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { replayThenLive } from "../../src/dispatch/run-events.ts";
import { progressChannel } from "../../src/dispatch/run-progress.ts";
import { newRun, type RunEventRecord } from "../../src/dispatch/run-record.ts";
import { RunSettle } from "../../src/dispatch/run-settle.ts";
import { buildApp } from "../../src/server/build-app.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { sseReader, until } from "../graphql/support.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

/** The stored RUN_PROGRESS events of a run. */
const progressOf = async (runId: string) =>
  (await rt!.runs.events({ runId }, 0)).filter((e) => e.type === "RUN_PROGRESS");

/** A tool that reports `updates`, then waits until `expect` of its updates are stored before answering. */
function reporter(
  app: App,
  name: string,
  tier: "read" | "secret",
  updates: Record<string, unknown>[],
  expectStored: number,
) {
  app.tool({ name, description: "Reports progress.", input: z.object({}), tier }, async (_i, ctx) => {
    for (const u of updates) ctx.onUpdate(u);
    await until(
      `${expectStored} progress events of ${name}`,
      async () => (await progressOf(ctx.runId)).length >= expectStored,
    );
    return "done";
  });
}

describe("execute(tool_call_id, params, signal, on_update, ctx): on_update reports partial updates as RUN_PROGRESS run events", () => {
  it("should store each update in the run log as RUN_PROGRESS with its seq, between RUN_STARTED and RUN_FINISHED", async () => {
    const app = new App();
    reporter(app, "scan", "read", [{ message: "scanning", progress: 1, total: 4, details: { file: "a.txt" } }], 1);
    rt = await testRuntime({ app });
    const run = await rt.dispatcher.run({ tool: "scan", input: {}, caller: as("USER"), door: "runtime" });
    expect(run.status).toBe("SUCCEEDED");
    const events = await rt.runs.events({ runId: run.id }, 0);
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_PROGRESS", "RUN_FINISHED"]);
    expect(events[1].seq).toBeGreaterThan(events[0].seq);
    expect(events[1].progress).toEqual({
      message: "scanning",
      progress: 1,
      total: 4,
      details: { file: "a.txt" },
      detailsDropped: null,
    });
    expect(events[1].run).toMatchObject({ id: run.id, status: "RUNNING" });
    expect(events[2].progress).toBeUndefined();
  });

  it("should replay RUN_PROGRESS after afterSeq like every run event, then continue live", async () => {
    const app = new App();
    reporter(app, "scan", "read", [{ message: "one" }], 1);
    rt = await testRuntime({ app });
    const run = await rt.dispatcher.run({ tool: "scan", input: {}, caller: as("USER"), door: "runtime" });
    const [started] = await rt.runs.events({ runId: run.id }, 0);
    const controller = new AbortController();
    const seen: RunEventRecord[] = [];
    for await (const e of replayThenLive(rt, { runId: run.id }, started.seq, controller.signal, as("USER"))) {
      seen.push(e);
      if (e.type === "RUN_FINISHED") break;
    }
    expect(seen.map((e) => [e.type, e.progress?.message ?? null])).toEqual([
      ["RUN_PROGRESS", "one"],
      ["RUN_FINISHED", null],
    ]);
  });

  it("should serve the update on GraphQL RunEvent.progress to a runEvents subscriber resuming with afterSeq", async () => {
    const app = new App();
    reporter(app, "scan", "read", [{ message: "half", progress: 50, total: 100 }], 1);
    rt = await testRuntime({ app });
    const admin = await rt.keys.create("admin", "ADMIN");
    const run = await rt.dispatcher.run({ tool: "scan", input: {}, caller: as("ADMIN"), door: "runtime" });
    const [started] = await rt.runs.events({ runId: run.id }, 0);
    const query = `subscription($r: ID, $a: Int) { runEvents(runId: $r, afterSeq: $a) { seq type progress { message progress total details detailsDropped } } }`;
    const res = await buildApp(rt).yoga.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", authorization: `Bearer ${admin}` },
      body: JSON.stringify({ query, variables: { r: run.id, a: started.seq } }),
    });
    const stream = sseReader(res);
    await until("the replayed events", () => stream.nexts().length >= 2);
    await stream.cancel();
    expect(
      stream
        .nexts<{ runEvents: { type: string; progress: unknown } }>()
        .map((e) => [e.data!.runEvents.type, e.data!.runEvents.progress]),
    ).toEqual([
      ["RUN_PROGRESS", { message: "half", progress: 50, total: 100, details: null, detailsDropped: null }],
      ["RUN_FINISHED", null],
    ]);
  });

  it("should redact a secret-tier tool's message and details like its result, keeping the numbers, in every stored row", async () => {
    const app = new App();
    reporter(
      app,
      "vault",
      "secret",
      [{ message: "unlocking with hunter2", progress: 1, total: 2, details: { key: "hunter2" } }],
      1,
    );
    rt = await testRuntime({ app });
    const run = await rt.dispatcher.run({ tool: "vault", input: {}, caller: as("ADMIN"), door: "runtime" });
    const [event] = await progressOf(run.id);
    expect(event.progress).toEqual({
      message: "[redacted]",
      progress: 1,
      total: 2,
      details: "[redacted]",
      detailsDropped: null,
    });
    expect(JSON.stringify(await rt.db.runEvent.findMany({ where: { runId: run.id } }))).not.toContain("hunter2");
  });

  it("should bound an update's size: a long message is cut and oversized details are dropped, saying how large they were", async () => {
    const app = new App();
    reporter(app, "big", "read", [{ message: "x".repeat(5000), details: { blob: "y".repeat(10_000) } }], 1);
    rt = await testRuntime({ app });
    const run = await rt.dispatcher.run({ tool: "big", input: {}, caller: as("USER"), door: "runtime" });
    const [{ progress }] = await progressOf(run.id);
    expect(progress!.message).toHaveLength(1000);
    expect(progress!.message!.endsWith("…")).toBe(true);
    expect(progress!.details).toBeNull();
    expect(progress!.detailsDropped).toBe(JSON.stringify({ blob: "y".repeat(10_000) }).length);
  });

  it("should bound the rate: updates within the interval collapse to the newest, written when the interval ends", async () => {
    const app = new App();
    reporter(
      app,
      "chatty",
      "read",
      Array.from({ length: 50 }, (_, i) => ({ message: `step ${i}`, progress: i })),
      2,
    );
    rt = await testRuntime({ app });
    const run = await rt.dispatcher.run({ tool: "chatty", input: {}, caller: as("USER"), door: "runtime" });
    expect((await progressOf(run.id)).map((e) => e.progress!.message)).toEqual(["step 0", "step 49"]);
  });

  it("should fail the run with a clear INTERNAL error naming the field when an update is malformed, storing no progress", async () => {
    const app = new App();
    app.tool({ name: "sloppy", description: "Bad update.", input: z.object({}) }, (_i, ctx) => {
      ctx.onUpdate({ progress: -1, colour: "red" } as never);
      return "unreachable";
    });
    rt = await testRuntime({ app });
    const run = await rt.dispatcher.run({ tool: "sloppy", input: {}, caller: as("USER"), door: "runtime" });
    expect(run).toMatchObject({ status: "FAILED", errorKind: "INTERNAL" });
    expect(run.errorMessage).toMatch(
      /^ctx\.onUpdate: invalid update: .*colour.*\/progress: must be >= 0|^ctx\.onUpdate: invalid update: \/progress: must be >= 0.*colour/,
    );
    expect(await progressOf(run.id)).toEqual([]);
  });
});

describe("the per-run bound of RUN_PROGRESS", () => {
  it("should store no more than perRun updates of one execution and drop the rest, and none once the run's channel is closed", async () => {
    rt = await testRuntime({ app: new App() });
    const run = newRun({ tool: "manual", input: {}, door: "runtime", callerRole: "USER", callerKey: null });
    await rt.runs.start(run, null, rt.instanceId);
    const settle = new RunSettle(rt);
    const channel = progressChannel(rt, settle, run, false, rt.log, undefined, { intervalMs: 0, perRun: 3 });
    for (let i = 0; i < 10; i++) channel.update({ progress: i });
    await until("three progress events", async () => (await progressOf(run.id)).length === 3);
    channel.close();
    channel.update({ progress: 99 });
    expect((await progressOf(run.id)).map((e) => e.progress!.progress)).toEqual([0, 1, 2]);
    expect(rt.logLines.filter((l) => l.includes("more than 3 progress updates"))).toHaveLength(1);
  });

  it("should write nothing for an update that arrives after the run ended elsewhere (the run is no longer RUNNING)", async () => {
    rt = await testRuntime({ app: new App() });
    const run = newRun({ tool: "manual", input: {}, door: "runtime", callerRole: "USER", callerKey: null });
    await rt.runs.start(run, null, rt.instanceId);
    await rt.runs.finish({ ...run, status: "SUCCEEDED", finishedAt: new Date().toISOString() }, null);
    expect(
      await rt.runs.progress(run, {
        message: "late",
        progress: null,
        total: null,
        details: null,
        detailsDropped: null,
      }),
    ).toBeNull();
    expect(await progressOf(run.id)).toEqual([]);
  });
});
