import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newRun, type RunRecord } from "../../src/dispatch/run-record.ts";
import type { AgentLogEntry } from "../../src/agent/events.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * The run log's statements bypass Prisma (`src/runlog/`): what they write must read back
 * through Prisma exactly like what Prisma itself writes, on SQLite and (under
 * `npm run test:pg`) on PostgreSQL. Every column of Run, Attempt, RunEvent, AgentEvent and
 * the end of AgentRun is written here with values and with nulls.
 */
describe("the run log's statements against the Prisma schema", () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await testRuntime();
  });
  afterEach(() => rt.dispose());

  const full = (): RunRecord => ({
    ...newRun({
      tool: "storé\u0000d",
      input: { a: [1, "two", { three: null }], "k\u0000": true },
      door: "graphql",
      callerRole: "USER",
      callerKey: "key-user",
      callerKeyId: "kid-1",
      parentRunId: "parent-1",
    }),
    tier: "write",
    retryPolicy: {
      maxAttempts: 3,
      kinds: ["UNAVAILABLE"],
      backoff: { initialSeconds: 0.5, multiplier: 2, capSeconds: 4 },
      declaredOn: "storé",
    } as unknown as RunRecord["retryPolicy"],
  });

  it("should read back a started, retried and finished run written by the log exactly as recorded, with text made storable", async () => {
    const run = full();
    const started = await rt.runs.start(run, "scope-1", rt.instanceId);
    expect(started?.type).toBe("RUN_STARTED");
    const attempt1 = {
      number: 1,
      startedAt: new Date(Date.now() - 50).toISOString(),
      finishedAt: new Date(Date.now() - 40).toISOString(),
      errorKind: "UNAVAILABLE" as const,
      errorMessage: "down\u0000",
      waitSeconds: 0.5,
    };
    const retried = (await rt.runs.attemptFailed({ ...run, attempts: [attempt1] }, attempt1))!;
    const attempt2 = {
      number: 2,
      startedAt: new Date(Date.now() - 10).toISOString(),
      finishedAt: new Date().toISOString(),
      errorKind: null,
      errorMessage: null,
      waitSeconds: null,
    };
    const done: RunRecord = {
      ...run,
      status: "SUCCEEDED",
      content: [{ type: "text", text: "ok" }],
      data: { n: 1.5, list: [true, false] },
      details: { why: "because" },
      terminate: true,
      attempts: [attempt1, attempt2],
      finishedAt: new Date().toISOString(),
    };
    const finished = await rt.runs.finish(done, attempt2);
    expect([started!.seq < retried.seq, retried.seq < finished.seq]).toEqual([true, true]);

    const stored = await rt.runs.get(run.id);
    expect(stored).toEqual({
      ...done,
      tool: "storé\uFFFDd",
      input: { a: [1, "two", { three: null }], "k\uFFFD": true },
      attempts: [{ ...attempt1, errorMessage: "down\uFFFD" }, attempt2],
    });
    expect((await rt.runs.byScope("scope-1"))?.id).toBe(run.id);
    const events = await rt.runs.events({ runId: run.id }, 0);
    expect(events.map((e) => [e.seq, e.type, e.tool, e.runId])).toEqual([
      [started!.seq, "RUN_STARTED", "storé\uFFFDd", run.id],
      [retried.seq, "ATTEMPT_FAILED", "storé\uFFFDd", run.id],
      [finished.seq, "RUN_FINISHED", "storé\uFFFDd", run.id],
    ]);
    expect(events[2].run).toEqual(
      JSON.parse(JSON.stringify({ ...done, tool: "storé\uFFFDd", input: stored!.input, attempts: stored!.attempts })),
    );
    expect(events.map((e) => e.at)).toEqual([run.startedAt, attempt1.finishedAt, done.finishedAt]);
  });

  it("should rewrite only the value fields of a run's stored rows when it is rescrubbed with its scope, leaving ids, enums and names as they were", async () => {
    const SECRET = "rescrub-s3cret-value";
    const run: RunRecord = { ...full(), input: { password: SECRET, note: "keep" } };
    const started = await rt.runs.start(run, null, rt.instanceId);
    const attempt = {
      number: 1,
      startedAt: run.startedAt,
      finishedAt: new Date().toISOString(),
      errorKind: "UNAVAILABLE" as const,
      errorMessage: `refused ${SECRET}`,
      waitSeconds: 0.5,
    };
    const retried = await rt.runs.attemptFailed({ ...run, attempts: [attempt] }, attempt);
    const progressed = await rt.runs.progress(run, {
      message: `at ${SECRET}`,
      progress: 1,
      total: 2,
      details: { s: SECRET },
      detailsDropped: null,
    });
    // Structural words in the scope too: only values are ever rewritten.
    const scope = rt.secrets.scope();
    for (const v of [SECRET, "RUNNING", "graphql", "RUN_STARTED", "UNAVAILABLE"]) scope.add(v);
    expect(await rt.runs.rescrub(run.id, scope)).toBe(5);
    expect(await rt.runs.rescrub(run.id, scope)).toBe(0);
    const stored = await rt.runs.get(run.id);
    expect(stored).toMatchObject({
      status: "RUNNING",
      door: "graphql",
      input: { password: "[redacted]", note: "keep" },
      attempts: [{ errorKind: "UNAVAILABLE", errorMessage: "refused [redacted]" }],
    });
    const events = await rt.runs.events({ runId: run.id }, 0);
    expect(events.map((e) => [e.seq, e.type, e.run.status, e.run.door, e.run.input])).toEqual([
      [started!.seq, "RUN_STARTED", "RUNNING", "graphql", { password: "[redacted]", note: "keep" }],
      [retried!.seq, "ATTEMPT_FAILED", "RUNNING", "graphql", { password: "[redacted]", note: "keep" }],
      [progressed!.seq, "RUN_PROGRESS", "RUNNING", "graphql", { password: "[redacted]", note: "keep" }],
    ]);
    expect(events[1].run.attempts).toEqual([{ ...attempt, errorMessage: "refused [redacted]" }]);
    expect(events[2].progress).toMatchObject({ message: "at [redacted]", details: { s: "[redacted]" }, progress: 1 });
    expect(
      JSON.stringify([await rt.db.run.findMany(), await rt.db.runEvent.findMany(), await rt.db.attempt.findMany()]),
    ).not.toContain(SECRET);
  });

  it("should store nulls as nulls: a run with no input, policy, key, data or details reads back with each null", async () => {
    const run: RunRecord = {
      ...newRun({ tool: "bare", input: null, door: "runtime", callerRole: "READER", callerKey: null }),
      tier: null,
    };
    await rt.runs.start(run, null, rt.instanceId);
    await rt.runs.finish(
      {
        ...run,
        status: "FAILED",
        isError: true,
        errorKind: "INTERNAL",
        errorMessage: "boom",
        finishedAt: new Date().toISOString(),
      },
      null,
    );
    const stored = await rt.runs.get(run.id);
    expect(stored).toMatchObject({
      input: null,
      retryPolicy: null,
      callerKey: null,
      callerKeyId: null,
      tier: null,
      data: null,
      details: null,
      parentRunId: null,
      status: "FAILED",
      isError: true,
      terminate: false,
      attempts: [],
    });
  });

  it("should refuse a second run with a taken idempotency scope without failing, and keep the first", async () => {
    const first = full();
    const second = full();
    const [a, b] = await Promise.all([
      rt.runs.start(first, "shared", rt.instanceId),
      rt.runs.start(second, "shared", rt.instanceId),
    ]);
    expect([a === null, b === null].sort()).toEqual([false, true]);
    expect(await rt.runs.get(a ? second.id : first.id)).toBeNull();
    expect((await rt.runs.byScope("shared"))?.id).toBe(a ? first.id : second.id);
  });

  it("should fail the start of a run whose id is already stored, not answer it as a taken idempotency scope", async () => {
    // What a batch written again after its commit was lost in transit (a connection that
    // died at COMMIT) looks like: answering null would send the dispatch to wait on itself.
    const run = full();
    await rt.runs.start(run, "scope-a", rt.instanceId);
    await expect(rt.runs.start(run, "scope-b", rt.instanceId)).rejects.toThrow();
    await expect(rt.runs.start({ ...run }, null, rt.instanceId)).rejects.toThrow();
  });

  it("should settle a run finished twice at once only by the first, with one closing event, as two writes one after the other would", async () => {
    const run = full();
    await rt.runs.start(run, null, rt.instanceId);
    const succeeded: RunRecord = { ...run, status: "SUCCEEDED", finishedAt: new Date().toISOString() };
    const cancelled: RunRecord = {
      ...run,
      status: "CANCELLED",
      isError: true,
      errorKind: "CANCELLED",
      errorMessage: "cancelled",
      finishedAt: new Date().toISOString(),
    };
    const [a, b] = await Promise.all([rt.runs.finish(succeeded, null), rt.runs.finish(cancelled, null)]);
    const closing = (await rt.runs.events({ runId: run.id }, 0)).filter((e) => e.type === "RUN_FINISHED");
    expect(closing).toHaveLength(1);
    expect([a.seq, b.seq]).toEqual([closing[0].seq, closing[0].seq]);
    expect((await rt.runs.get(run.id))?.status).toBe(closing[0].run.status);
  });

  it("should write an agent run's entries and its end so that they read back through Prisma", async () => {
    const store = rt.agents.store;
    await store.create({
      id: "agent-run-1",
      agent: "tools_agent",
      threadId: null,
      input: { userMessage: "hi" },
      callerRole: "USER",
      callerKey: null,
      checkpoint: { instanceId: rt.instanceId },
      startedAt: new Date().toISOString(),
    });
    const delta = {
      type: "message_delta",
      delta: "he\u0000llo",
      agent: null,
      seq: 1,
      runId: "agent-run-1",
    } as unknown as Parameters<typeof store.appendEvent>[0];
    await store.appendEvent(delta);
    const final = {
      type: "message_final",
      final: true,
      message: "hello",
      agent: null,
      seq: 2,
      runId: "agent-run-1",
    } as unknown as AgentLogEntry;
    await store.finish(final, "SUCCEEDED", { resumable: false });
    expect(await store.events("agent-run-1", 0)).toEqual([{ ...delta, delta: "he\uFFFDllo" }, final]);
    expect(await store.get("agent-run-1")).toMatchObject({
      status: "SUCCEEDED",
      final,
      checkpoint: { resumable: false },
    });
    expect((await store.get("agent-run-1"))?.finishedAt).toEqual(expect.any(String));
  });

  it("should store an agent run's end whose checkpoint holds a NUL character and a lone surrogate, made storable like its entries", async () => {
    const store = rt.agents.store;
    await store.create({
      id: "agent-run-2",
      agent: "tools_agent",
      threadId: null,
      input: {},
      callerRole: "USER",
      callerKey: null,
      checkpoint: { instanceId: rt.instanceId },
      startedAt: new Date().toISOString(),
    });
    const final = {
      type: "suspended_final",
      final: true,
      agent: null,
      seq: 1,
      runId: "agent-run-2",
    } as unknown as AgentLogEntry;
    await store.finish(final, "SUSPENDED", { pending: [{ input: "a\u0000b", note: "x\uD800y", "k\u0000": 1 }] });
    expect(await store.get("agent-run-2")).toMatchObject({
      status: "SUSPENDED",
      checkpoint: { pending: [{ input: "a\uFFFDb", note: "x\uFFFDy", "k\uFFFD": 1 }] },
    });
  });

  it("should read a queued run for its claim with its attempts and stored options exactly as Prisma reads them", async () => {
    const run = { ...full(), status: "QUEUED" as const };
    const replay = { idempotencyKey: "key-1", timeoutSeconds: 2.5, replayable: true };
    await rt.runs.start(run, "scope-claim", rt.instanceId, replay);
    await rt.db.attempt.create({
      data: { runId: run.id, number: 1, startedAt: new Date(), errorKind: "UNAVAILABLE", errorMessage: "cut" },
    });
    const read = await rt.runs.withReplay(run.id);
    expect(read?.run).toEqual(await rt.runs.get(run.id));
    expect(read?.run.attempts).toHaveLength(1);
    expect(read?.replay).toEqual({ ...replay, redrives: 0, instanceId: rt.instanceId, syncWait: false });
    expect(await rt.runs.withReplay("no-such-run")).toBeNull();
  });

  it("should store a synchronous waiter's details.waitingFor and syncWait with its start, and clear both with its claim, leaving a queued run's details to its claim", async () => {
    const waitingFor = { reason: "concurrency", declaredOn: "storé", waitSeconds: 10 };
    const waiter = { ...full(), status: "QUEUED" as const, details: { waitingFor } };
    const replay = { idempotencyKey: null, timeoutSeconds: null, replayable: true, syncWait: true };
    await rt.runs.start(waiter, null, rt.instanceId, replay);
    const stored = await rt.runs.withReplay(waiter.id);
    expect(stored?.run).toEqual(await rt.runs.get(waiter.id));
    expect(stored?.run.details).toEqual({ waitingFor });
    expect(stored?.replay.syncWait).toBe(true);
    expect(await rt.runs.claim({ ...waiter, status: "RUNNING", details: null }, rt.instanceId)).not.toBeNull();
    expect(await rt.runs.withReplay(waiter.id)).toMatchObject({
      run: { status: "RUNNING", details: null },
      replay: { syncWait: false, instanceId: rt.instanceId },
    });
    // A queued run that is not a waiter keeps its details through its claim.
    const other = { ...full(), status: "QUEUED" as const, details: { kept: true } };
    await rt.runs.start(other, null, rt.instanceId, { ...replay, syncWait: false });
    await rt.runs.claim({ ...other, status: "RUNNING" }, rt.instanceId);
    expect((await rt.runs.get(other.id))?.details).toEqual({ kept: true });
  });
});
