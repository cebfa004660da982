import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../../../src/agent/events.ts";
import { runBatch, type BatchItem } from "../../../src/agent/tools-agent/batch.ts";
import type { CallOutcome, DoneOutcome } from "../../../src/agent/tools-agent/checkpoint.ts";

/** A finished outcome whose result is `value`. */
const done = (value: unknown, isError = false): DoneOutcome => ({
  status: "done",
  isError,
  result: value,
  modelOutput: { type: "json", value: value as never },
  terminate: false,
  value,
});

/** A call the test finishes by hand: `finish()` resolves it, `started` tells whether it began. */
function manual(callId: string, mode: "parallel" | "sequential" = "parallel", tool = "t") {
  const gate = Promise.withResolvers<CallOutcome>();
  const state = { started: false, emit: null as ((e: StreamEvent) => void) | null };
  const item: BatchItem = {
    callId,
    tool,
    shownArgs: { id: callId },
    mode,
    run: (emit) => {
      state.started = true;
      state.emit = emit;
      return gate.promise;
    },
  };
  return { item, state, finish: (o: CallOutcome = done(callId)) => gate.resolve(o) };
}

/** Drives the generator by hand: `pull()` awaits its next event (or its return value). */
function drive(items: BatchItem[], agent: string | null = null) {
  const gen = runBatch(items, agent);
  return { pull: () => gen.next(), gen };
}

/** Runs a batch of calls that finish on their own to its end; returns its events and outcomes. */
async function runAll(
  items: BatchItem[],
  agent: string | null = null,
): Promise<{ events: StreamEvent[]; outcomes: CallOutcome[] }> {
  const events: StreamEvent[] = [];
  const gen = runBatch(items, agent);
  for (;;) {
    const n = await gen.next();
    if (n.done) return { events, outcomes: n.value };
    events.push(n.value);
  }
}

const instant = (
  callId: string,
  mode: "parallel" | "sequential" = "parallel",
  outcome: CallOutcome = done(callId),
): BatchItem => ({
  callId,
  tool: "t",
  shownArgs: {},
  mode,
  run: async () => outcome,
});

describe("runBatch: one model turn's calls", () => {
  it("should announce every call first, in the order asked, before any result", async () => {
    const a = manual("a");
    const b = manual("b");
    const { pull } = drive([a.item, b.item], "helper");
    expect((await pull()).value).toEqual({
      type: "tool_call_step",
      final: false,
      tool: "t",
      args: { id: "a" },
      callId: "a",
      agent: "helper",
    });
    expect((await pull()).value).toMatchObject({ type: "tool_call_step", callId: "b" });
    a.finish();
    b.finish();
    expect((await pull()).value).toMatchObject({ type: "tool_result_step", callId: "a", agent: "helper" });
  });

  it("should mark a call that carries out an interrupt's decision with resumedInterruptId", async () => {
    const { events } = await runAll([{ ...instant("a"), interruptId: "int-1" }, instant("b")]);
    expect(events[0]).toMatchObject({ type: "tool_call_step", callId: "a", resumedInterruptId: "int-1" });
    expect(events[1]).not.toHaveProperty("resumedInterruptId");
  });

  it("should start consecutive parallel calls together", async () => {
    const a = manual("a");
    const b = manual("b");
    const { pull } = drive([a.item, b.item]);
    await pull();
    await pull();
    const third = pull();
    await until(() => a.state.started && b.state.started);
    a.finish();
    b.finish();
    expect((await third).value).toMatchObject({ type: "tool_result_step", callId: "a" });
  });

  it("should hold a later result back until every earlier call is done, then give them in the order asked", async () => {
    const a = manual("a");
    const b = manual("b");
    const { pull } = drive([a.item, b.item]);
    await pull();
    await pull();
    const next = pull();
    await until(() => b.state.started);
    b.finish(done("B"));
    let early = false;
    void next.then(() => (early = true));
    await settle();
    expect(early).toBe(false);
    a.finish(done("A"));
    expect((await next).value).toMatchObject({ type: "tool_result_step", callId: "a", result: "A" });
    expect((await pull()).value).toMatchObject({ type: "tool_result_step", callId: "b", result: "B" });
    const end = await pull();
    expect(end.done).toBe(true);
    expect((end.value as CallOutcome[]).map((o) => (o as DoneOutcome).value)).toEqual(["A", "B"]);
  });

  it.each([
    {
      case: "a sequential call before the parallel calls asked before it have ended",
      first: "parallel",
      second: "sequential",
    },
    { case: "the calls after a sequential call before it has ended", first: "sequential", second: "parallel" },
  ] as const)("should not start $case", async ({ first, second }) => {
    const one = manual("one", first);
    const two = manual("two", second);
    const { pull } = drive([one.item, two.item]);
    await pull();
    await pull();
    const next = pull();
    await until(() => one.state.started);
    await settle();
    expect(two.state.started).toBe(false);
    one.finish();
    await until(() => two.state.started);
    two.finish();
    expect((await next).value).toMatchObject({ callId: "one" });
  });

  it("should run two sequential calls one after the other", async () => {
    const order: string[] = [];
    const seq = (id: string): BatchItem => ({
      ...instant(id, "sequential"),
      run: async () => {
        order.push(`${id} start`);
        await settle();
        order.push(`${id} end`);
        return done(id);
      },
    });
    await runAll([seq("x"), seq("y")]);
    expect(order).toEqual(["x start", "x end", "y start", "y end"]);
  });

  it("should interleave the events a call emits while it runs, before its result", async () => {
    const a = manual("a");
    const { pull } = drive([a.item]);
    await pull();
    const next = pull();
    await until(() => a.state.emit !== null);
    a.state.emit!({ type: "intermediate_delta", final: false, text: "thinking", agent: "sub" });
    expect((await next).value).toMatchObject({ type: "intermediate_delta", text: "thinking" });
    const result = pull();
    a.finish();
    expect((await result).value).toMatchObject({ type: "tool_result_step", callId: "a" });
  });

  it("should give a call that rejects an INTERNAL error result naming only the error's class, and go on", async () => {
    const broken: BatchItem = { ...instant("a"), run: () => Promise.reject(new TypeError("secret path /etc/x")) };
    const { events, outcomes } = await runAll([broken, instant("b")]);
    expect(outcomes[0]).toMatchObject({
      status: "done",
      isError: true,
      result: { kind: "INTERNAL" },
      terminate: false,
    });
    expect(JSON.stringify(outcomes[0])).not.toContain("/etc/x");
    expect(events.filter((e) => e.type === "tool_result_step").map((e) => (e as { isError: boolean }).isError)).toEqual(
      [true, false],
    );
  });

  it("should give no ToolResultStep to a parked, asking or paused call, but return its outcome in place", async () => {
    const parked: CallOutcome = { status: "parked", toolRunId: "run-1" };
    const asking: CallOutcome = { status: "ask", toolRunId: "run-2" };
    const { events, outcomes } = await runAll([
      instant("a", "parallel", parked),
      instant("b"),
      instant("c", "parallel", asking),
    ]);
    expect(events.map((e) => `${e.type} ${(e as { callId?: string }).callId}`)).toEqual([
      "tool_call_step a",
      "tool_call_step b",
      "tool_call_step c",
      "tool_result_step b",
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["parked", "done", "ask"]);
  });

  it("should carry a call's details and error flag into its ToolResultStep", async () => {
    const { events } = await runAll([instant("a", "parallel", { ...done({ n: 1 }, true), details: { page: 2 } })]);
    expect(events[1]).toEqual({
      type: "tool_result_step",
      final: false,
      tool: "t",
      callId: "a",
      result: { n: 1 },
      details: { page: 2 },
      isError: true,
      agent: null,
    });
  });

  it("should return an empty list for an empty turn without yielding", async () => {
    expect(await runAll([])).toEqual({ events: [], outcomes: [] });
  });
});

/** Lets every pending callback and timer of this tick run. */
const settle = () => new Promise((r) => setImmediate(r));

/** Resolves once `check` holds, letting the event loop turn in between. */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await settle();
  expect(check()).toBe(true);
}
