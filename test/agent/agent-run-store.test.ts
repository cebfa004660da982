import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentRunRecord, AgentRunStore } from "../../src/agent/agent-runs.ts";
import type { AgentEventRecord, AgentLogEntry } from "../../src/agent/events.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/** The agent run store of a runtime over a fresh database, driven by hand. */
describe("the agent run store", () => {
  let rt: TestRuntime;
  let store: AgentRunStore;
  beforeEach(async () => {
    rt = await testRuntime();
    store = rt.agents.store;
  });
  afterEach(() => rt.dispose());

  let clock = Date.parse("2026-01-01T00:00:00Z");
  /** Creates a RUNNING run; each one starts a second after the last, so thread order is certain. */
  async function create(id: string, over: Partial<AgentRunRecord> = {}): Promise<void> {
    clock += 1000;
    await store.create({
      id,
      agent: "tools_agent",
      threadId: "t1",
      input: { userMessage: id },
      callerRole: "USER",
      callerKey: "k",
      checkpoint: { instanceId: "me" },
      startedAt: new Date(clock).toISOString(),
      ...over,
    });
  }
  const delta = (runId: string, seq: number): AgentEventRecord => ({
    type: "message_delta",
    final: false,
    text: `t${seq}`,
    agent: null,
    seq,
    runId,
  });
  const final = (runId: string, seq: number): AgentLogEntry => ({
    type: "message_final",
    final: true,
    text: "done",
    agent: null,
    seq,
    runId,
  });
  const suspended = (runId: string, seq: number): AgentLogEntry =>
    ({ type: "suspended_final", final: true, interactionIds: ["i1"], agent: null, seq, runId }) as never;

  it("should create a RUNNING run and read it back as given", async () => {
    await create("r1");
    expect(await store.get("r1")).toMatchObject({
      id: "r1",
      agent: "tools_agent",
      threadId: "t1",
      status: "RUNNING",
      input: { userMessage: "r1" },
      final: null,
      callerRole: "USER",
      callerKey: "k",
      checkpoint: { instanceId: "me" },
      finishedAt: null,
    });
    expect(await store.get("nope")).toBeNull();
  });

  it("should store events and read those after a seq in order, and know the last seq", async () => {
    await create("r1");
    expect(await store.lastSeq("r1")).toBe(0);
    for (const seq of [1, 2, 3]) await store.appendEvent(delta("r1", seq));
    expect((await store.events("r1", 0)).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect((await store.events("r1", 2)).map((e) => e.seq)).toEqual([3]);
    expect(await store.lastSeq("r1")).toBe(3);
  });

  it("should end a run once with its terminal and status; a second end loses and stores nothing", async () => {
    await create("r1");
    expect(await store.finish(final("r1", 1), "SUCCEEDED", null)).toBe(true);
    expect(
      await store.finish(
        { type: "run_failed", final: true, seq: 2, runId: "r1", kind: "INTERNAL", message: "late" },
        "FAILED",
        null,
      ),
    ).toBe(false);
    const run = await store.get("r1");
    expect(run).toMatchObject({ status: "SUCCEEDED", final: { type: "message_final", seq: 1 } });
    expect(run!.finishedAt).not.toBeNull();
    expect((await store.events("r1", 0)).map((e) => e.type)).toEqual(["message_final"]);
  });

  it("should know a thread's first, latest and running run", async () => {
    await create("a");
    await store.finish(final("a", 1), "SUCCEEDED", null);
    await create("b");
    await create("other", { threadId: "t2" });
    expect((await store.firstOnThread("t1"))!.id).toBe("a");
    expect((await store.latestOnThread("t1"))!.id).toBe("b");
    expect((await store.runningOnThread("t1"))!.id).toBe("b");
    expect(await store.latestOnThread("t3")).toBeNull();
  });

  it("should see a running rival on the thread, and for a resume any run started after the paused one", async () => {
    await create("paused");
    await store.finish(suspended("paused", 1), "SUSPENDED", { kind: "suspend" });
    const pausedRun = (await store.get("paused"))!;
    await create("mine");
    expect(await store.rivalOnThread("t1", "mine", null)).toBeNull();
    await create("racer");
    expect((await store.rivalOnThread("t1", "mine", null))!.id).toBe("racer");
    await store.finish(final("racer", 1), "SUCCEEDED", null);
    expect(await store.rivalOnThread("t1", "mine", null)).toBeNull();
    expect((await store.rivalOnThread("t1", "mine", pausedRun))!.id).toBe("racer");
  });

  it("should discard only a run that is still RUNNING", async () => {
    await create("lost");
    await create("done");
    await store.finish(final("done", 1), "SUCCEEDED", null);
    await store.discard("lost");
    await store.discard("done");
    expect(await store.get("lost")).toBeNull();
    expect(await store.get("done")).not.toBeNull();
  });

  it("should let exactly one resume claim a paused run, and undo a claim", async () => {
    await create("r1");
    expect(await store.claim("r1")).toBe(false);
    await store.finish(
      {
        type: "interrupt_final",
        final: true,
        seq: 1,
        runId: "r1",
        agent: null,
        interruptId: "x",
        actions: [],
      } as never,
      "INTERRUPTED",
      { kind: "interrupt" },
    );
    expect(await store.claim("r1")).toBe(true);
    expect(await store.claim("r1")).toBe(false);
    expect((await store.get("r1"))!.status).toBe("RESUMED");
    await store.unclaim("r1", "INTERRUPTED");
    expect((await store.get("r1"))!.status).toBe("INTERRUPTED");
  });

  it("should let one continuation claim a suspension as it was read, and give it back as it was", async () => {
    await create("r1");
    await store.finish(suspended("r1", 1), "SUSPENDED", { kind: "suspend", mark: 4 });
    const read = (await store.get("r1"))!;
    expect((await store.suspended()).map((r) => r.id)).toEqual(["r1"]);
    expect(await store.claimSuspended(read, "instance-b")).toBe(true);
    expect(await store.claimSuspended(read, "instance-c")).toBe(false);
    expect(await store.get("r1")).toMatchObject({
      status: "RUNNING",
      finishedAt: null,
      checkpoint: { kind: "suspend", mark: 4, instanceId: "instance-b" },
    });
    expect(await store.suspended()).toEqual([]);
    await store.unclaimSuspended(read);
    expect(await store.get("r1")).toMatchObject({
      status: "SUSPENDED",
      finishedAt: read.finishedAt,
      checkpoint: { kind: "suspend", mark: 4 },
    });
    expect(await store.claimSuspended(read, "instance-c")).toBe(true);
  });

  it("should find the RUNNING runs whose instance is not live", async () => {
    await create("mine", { checkpoint: { instanceId: "me" } });
    await create("gone", { checkpoint: { instanceId: "dead" } });
    await create("none", { checkpoint: null });
    await create("ended", { checkpoint: { instanceId: "dead" } });
    await store.finish(final("ended", 1), "SUCCEEDED", null);
    expect((await store.orphans(new Set(["me"]))).map((r) => r.id).sort()).toEqual(["gone", "none"]);
  });

  it("should list runs newest first, a page after a given one, and count them by status", async () => {
    for (const id of ["a", "b", "c"]) await create(id);
    await store.finish(final("b", 1), "SUCCEEDED", null);
    const everyone = { all: true } as never;
    const page = await store.list({}, 2, undefined, everyone);
    expect(page.map((r) => r.id)).toEqual(["c", "b"]);
    const next = await store.list({}, 2, { startedAt: new Date(page[1].startedAt), id: page[1].id }, everyone);
    expect(next.map((r) => r.id)).toEqual(["a"]);
    expect(await store.count({ status: "RUNNING" }, everyone)).toBe(2);
    expect(await store.count({ agent: "other_agent" }, everyone)).toBe(0);
  });
});
