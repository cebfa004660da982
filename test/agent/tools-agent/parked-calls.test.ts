import { describe, expect, it } from "vitest";
import { toolProgressStep } from "../../../src/agent/tool-progress-event.ts";
import { askEntry, parkedCall, waitsOf, type Wait } from "../../../src/agent/tools-agent/parked-calls.ts";
import type { RunEventRecord } from "../../../src/dispatch/run-record.ts";
import type { InteractionRecord } from "../../../src/interactions/park.ts";

const interaction = (
  id: string,
  status: InteractionRecord["status"],
  over: Partial<InteractionRecord> = {},
): InteractionRecord => ({
  id,
  runId: "tool-run-1",
  tool: "approve",
  question: `Question ${id}?`,
  to: "caller",
  answerFormat: { type: "boolean" },
  status,
  expiresAt: "2030-01-01T00:00:00.000Z",
  answer: null,
  answeredAt: null,
  callback: false,
  createdAt: "2029-12-31T00:00:00.000Z",
  ...over,
});

describe("the parked calls of a paused turn", () => {
  it("should read the interactions each parked call's tool run waits on, in the order of the calls", async () => {
    const byRun: Record<string, InteractionRecord[]> = {
      r1: [interaction("a", "PENDING")],
      r2: [interaction("b", "ANSWERED"), interaction("c", "PENDING")],
    };
    const port = { forRun: async (runId: string) => byRun[runId] ?? [] } as never;
    const waits = await waitsOf(port, [
      { callId: "c1", toolRunId: "r1" },
      { callId: "c2", toolRunId: "r2" },
      { callId: "c3", toolRunId: "r3" },
    ]);
    expect(waits.map((w) => [w.callId, w.toolRunId, w.interactions.map((i) => i.id)])).toEqual([
      ["c1", "r1", ["a"]],
      ["c2", "r2", ["b", "c"]],
      ["c3", "r3", []],
    ]);
  });

  it("should read no interactions without an interactions port", async () => {
    expect(await waitsOf(null, [{ callId: "c1", toolRunId: "r1" }])).toEqual([
      { callId: "c1", toolRunId: "r1", interactions: [] },
    ]);
  });

  it("should store a wait with all its interactions, or only the open ones", () => {
    const wait: Wait = {
      callId: "c1",
      toolRunId: "r1",
      interactions: [interaction("a", "ANSWERED"), interaction("b", "PENDING"), interaction("c", "EXPIRED")],
    };
    expect(parkedCall(wait, false)).toEqual({ callId: "c1", toolRunId: "r1", interactionIds: ["a", "b", "c"] });
    expect(parkedCall(wait, true)).toEqual({ callId: "c1", toolRunId: "r1", interactionIds: ["b"] });
  });

  it("should show an ask with its id, call, question, format, recipient, deadline and status", () => {
    expect(askEntry("c7", interaction("q1", "PENDING"))).toEqual({
      id: "q1",
      callId: "c7",
      question: "Question q1?",
      answerFormat: { type: "boolean" },
      to: "caller",
      expiryAt: "2030-01-01T00:00:00.000Z",
      status: "PENDING",
    });
  });
});

describe("toolProgressStep: a call's RUN_PROGRESS as a stream step", () => {
  /** A RUN_PROGRESS event of the call's tool run carrying `p`. */
  const progress = (p: Record<string, unknown> | undefined): RunEventRecord =>
    ({
      seq: 5,
      type: "RUN_PROGRESS",
      at: "2030-01-01T00:00:00.000Z",
      runId: "tool-run-9",
      tool: "crawl",
      progress: p,
    }) as unknown as RunEventRecord;

  it("should carry the message, progress, total and details of the update, for the call and agent given", () => {
    expect(
      toolProgressStep(
        "crawl",
        "call_0_1",
        "researcher",
        progress({ message: "page 2", progress: 2, total: 10, details: { url: "u" } }),
      ),
    ).toEqual({
      type: "tool_progress_step",
      final: false,
      tool: "crawl",
      callId: "call_0_1",
      toolRunId: "tool-run-9",
      message: "page 2",
      progress: 2,
      total: 10,
      details: { url: "u" },
      agent: "researcher",
    });
  });

  it("should give null for what the update leaves out", () => {
    expect(toolProgressStep("crawl", "c", null, progress(undefined))).toMatchObject({
      message: null,
      progress: null,
      total: null,
      details: null,
      agent: null,
    });
    expect(toolProgressStep("crawl", "c", null, progress({ progress: 0.5 }))).toMatchObject({
      message: null,
      progress: 0.5,
      total: null,
    });
  });
});
