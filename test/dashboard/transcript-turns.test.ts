import { describe, expect, it } from "vitest";
import { applyEvent, emptyTranscript, type TranscriptItem } from "../../src/dashboard/api/transcript.ts";
import type { StreamEvent } from "../../src/client/documents.ts";

let seq = 0;
const base = () => ({ final: false, seq: ++seq, runId: "r1", agent: null as string | null });
const delta = (text: string, turn: number, agent: string | null = null) => ({
  ...base(),
  agent,
  __typename: "MessageDelta",
  type: "message_delta",
  text,
  turn,
});
const aside = (text: string, turn: number, agent: string) => ({
  ...base(),
  agent,
  __typename: "IntermediateDelta",
  type: "intermediate_delta",
  text,
  turn,
});
const call = (callId: string, agent: string | null = null) => ({
  ...base(),
  agent,
  __typename: "ToolCallStep",
  type: "tool_call_step",
  tool: "calculate",
  args: {},
  callId,
  resumedInterruptId: null,
});
const messageFinal = (text: string, turn: number | null) => ({
  ...base(),
  final: true,
  __typename: "MessageFinal",
  type: "message_final",
  text,
  turn,
});

/** The transcript's text lines after `events`, as kind:turn:text. */
function lines(events: object[]): string[] {
  const t = (events as StreamEvent[]).reduce(applyEvent, emptyTranscript());
  return t.items.flatMap((i: TranscriptItem) =>
    i.kind === "text" || i.kind === "aside"
      ? [`${i.kind}${i.agent ? `(${i.agent})` : ""}:${i.turn}:${i.text}`]
      : [i.kind],
  );
}

describe("the dashboard transcript and the turns of docs/agent-stream.md §2.2", () => {
  it("should show a turn's text as it grows, as the text of the turn until something settles it", () => {
    expect(lines([delta("Let ", 1), delta("me ", 1), delta("check.", 1)])).toEqual(["text:1:Let me check."]);
  });

  it("should turn a turn's text into the text beside its calls once the same agent calls a tool, and keep what it writes after the call there", () => {
    expect(lines([delta("Let me ", 1), call("c1"), delta("check.", 1)])).toEqual([
      "aside:1:Let me ",
      "call",
      "aside:1:check.",
    ]);
  });

  it("should settle an earlier turn as not the answer when a later turn's delta comes", () => {
    expect(lines([delta('{"a":', 1), delta("2}", 2)])).toEqual(['aside:1:{"a":', "text:2:2}"]);
  });

  it("should keep the answer's turn as the answer at MessageFinal and not repeat its text", () => {
    expect(
      lines([delta("Checking.", 1), call("c1"), delta("It is ", 2), delta("42.", 2), messageFinal("It is 42.", 2)]),
    ).toEqual(["aside:1:Checking.", "call", "text:2:It is 42."]);
  });

  it("should add the answer as one line when nothing streamed it, or when the terminal names a turn no delta had", () => {
    expect(lines([messageFinal("Done.", null)])).toEqual(["text:null:Done."]);
    expect(lines([delta("Checking.", 1), call("c1"), messageFinal("Stopped.", 2)])).toEqual([
      "aside:1:Checking.",
      "call",
      "text:2:Stopped.",
    ]);
  });

  it("should keep a sub-agent's text beside, and leave the run's own turn unsettled by the sub-agent's calls", () => {
    expect(lines([aside("Looking.", 1, "fetcher"), call("c1", "fetcher"), delta("Here.", 1)])).toEqual([
      "aside(fetcher):1:Looking.",
      "call",
      "text:1:Here.",
    ]);
  });

  it("should settle every turn of a run that pauses: a pause has no answer", () => {
    const interrupt = {
      ...base(),
      final: true,
      __typename: "InterruptFinal",
      type: "interrupt_final",
      interruptId: "i1",
      payload: {},
      reason: "approval",
    };
    expect(lines([delta("I will store it.", 1), interrupt])).toEqual(["aside:1:I will store it."]);
  });
});
