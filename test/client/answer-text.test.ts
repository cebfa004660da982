import { describe, expect, it } from "vitest";
import { AnswerAccumulator, answerText, type AnswerEventLike } from "../../src/client/index.ts";

const delta = (text: string, turn: number, agent: string | null = null): AnswerEventLike => ({
  type: "message_delta",
  text,
  turn,
  agent,
});

describe("answerText: the client rule of docs/agent-stream.md §2.2", () => {
  it("should keep the latest turn of the run's own agent and start afresh when a new turn begins", () => {
    const acc = new AnswerAccumulator();
    expect(acc.push(delta("Let me ", 1))).toBe("Let me ");
    expect(acc.push(delta("check.", 1))).toBe("Let me check.");
    expect(acc.push({ type: "tool_call_step", agent: null })).toBe("Let me check.");
    expect(acc.push({ type: "intermediate_delta", text: "sub-agent words", turn: 1, agent: "helper" })).toBe(
      "Let me check.",
    );
    expect(acc.push(delta("It is ", 2))).toBe("It is ");
    expect(acc.done).toBe(false);
    acc.push(delta("42.", 2));
    expect(acc.push({ type: "message_final", text: "It is 42.", turn: 2, agent: null })).toBe("It is 42.");
    expect([acc.done, acc.turn]).toEqual([true, 2]);
  });

  it("should give the JSON text of a structured answer's turn, and the data's JSON when a tool result gave it", () => {
    const retried = [
      delta('{"n": "x"}', 1),
      delta('{"n": ', 2),
      delta("3}", 2),
      { type: "structured_final", data: { n: 3 }, turn: 2, agent: null },
    ];
    expect(answerText(retried)).toBe('{"n": 3}');
    expect(
      answerText([delta("Ending.", 1), { type: "structured_final", data: { done: true }, turn: null, agent: null }]),
    ).toBe('{"done":true}');
  });

  it("should take the MessageFinal's text when no delta carried the answer (a non-streaming agent)", () => {
    expect(answerText([{ type: "message_final", text: "done", turn: null, agent: null }])).toBe("done");
    expect(answerText([delta("a", 1, "sub")])).toBe("");
  });
});
