import { describe, expect, it } from "vitest";
import { applyEvent, emptyTranscript } from "../../src/dashboard/api/agents.ts";
import type { StreamEvent } from "../../src/client/documents.ts";

const base = { final: false, seq: 0, runId: "r1", agent: null };

describe("the dashboard transcript and ToolProgressStep", () => {
  it("should keep a running call's progress update out of the transcript's terminal, and pair the result with its call", () => {
    const events = [
      {
        ...base,
        __typename: "ToolCallStep",
        type: "tool_call_step",
        seq: 1,
        tool: "scan",
        args: { dir: "src" },
        callId: "c1",
      },
      {
        ...base,
        __typename: "ToolProgressStep",
        type: "tool_progress_step",
        seq: 2,
        tool: "scan",
        callId: "c1",
        toolRunId: "t1",
        message: "halfway",
        progress: 1,
        total: 2,
        details: null,
      },
      {
        ...base,
        __typename: "ToolResultStep",
        type: "tool_result_step",
        seq: 3,
        tool: "scan",
        callId: "c1",
        result: { files: 2 },
        details: null,
        isError: false,
      },
    ] as StreamEvent[];
    const t = events.reduce(applyEvent, emptyTranscript());
    expect(t.final).toBeNull();
    expect(t.items).toEqual([
      {
        kind: "call",
        agent: null,
        tool: "scan",
        callId: "c1",
        args: { dir: "src" },
        resumedInterruptId: null,
        result: { value: { files: 2 }, details: null, isError: false },
      },
    ]);
  });
});
