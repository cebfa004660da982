import type { StreamEvent } from "tai42/client";

/** One line of a run's transcript, built from its events. */
export type TranscriptItem =
  /** Text of a turn not settled yet, or the answer: shown as it grows. */
  | { kind: "text"; agent: string | null; turn: number | null; text: string }
  /** Text a model turn wrote beside its tool calls (a settled turn), or a sub-agent's: not the answer. */
  | { kind: "aside"; agent: string | null; turn: number | null; text: string }
  | { kind: "reasoning"; agent: string | null; text: string }
  | {
      kind: "call";
      agent: string | null;
      tool: string;
      callId: string;
      args: Record<string, unknown>;
      result?: { value: unknown; details: unknown; isError: boolean };
      /** On a resumed run: the interrupt whose decision this call carries out. */
      resumedInterruptId?: string | null;
    }
  | { kind: "usage"; inputTokens: number | null; outputTokens: number | null; model: string | null };

/** The terminal members a run can end with. */
export type Terminal = Extract<
  StreamEvent,
  { __typename: "MessageFinal" | "StructuredFinal" | "InterruptFinal" | "SuspendedFinal" | "AsksFinal" }
>;

/** What the transcript of one run holds so far. */
export interface RunTranscript {
  runId: string | null;
  items: TranscriptItem[];
  final: Terminal | null;
  /** Per speaker ("" for the run's own agent): the turn of its latest MessageDelta. */
  latest: Record<string, number>;
  /** Per speaker: the last turn a tool call settled as not the answer. */
  settled: Record<string, number>;
}

export const emptyTranscript = (): RunTranscript => ({ runId: null, items: [], final: null, latest: {}, settled: {} });

type Text = Extract<TranscriptItem, { kind: "text" | "aside" }>;

/** Turns the text lines of `agent` that `which` picks into text beside the calls. */
function settle(items: TranscriptItem[], agent: string | null, which: (i: Text) => boolean): TranscriptItem[] {
  return items.map((i) => (i.kind === "text" && i.agent === agent && which(i) ? { ...i, kind: "aside" } : i));
}

/** Appends a chunk to the last line when it is the same kind, speaker and turn; else opens a line. */
function append(
  items: TranscriptItem[],
  kind: Text["kind"],
  agent: string | null,
  turn: number | null,
  text: string,
): TranscriptItem[] {
  const last = items.at(-1);
  if (last?.kind === kind && last.agent === agent && last.turn === turn)
    return [...items.slice(0, -1), { ...last, text: last.text + text }];
  return [...items, { kind, agent, turn, text }];
}

/**
 * Folds one event into a transcript (docs/agent-stream.md §2.2). Each turn's text shows
 * as it grows; once the turn is settled as not the answer — a ToolCallStep of the same
 * agent, or a MessageDelta of a later turn — it becomes the text beside that turn's
 * calls. A sub-agent's IntermediateDelta is always beside. The terminal settles the
 * rest: a MessageFinal keeps its own turn as the answer (and adds it when nothing
 * streamed), a StructuredFinal shows its data in place of the JSON text it was parsed
 * from, a pause leaves no answer. A result goes beside its call.
 */
export function applyEvent(t: RunTranscript, e: StreamEvent): RunTranscript {
  let items = [...t.items];
  const runId = t.runId ?? e.runId;
  const agent = e.agent ?? null;
  const who = agent ?? "";
  switch (e.__typename) {
    case "MessageDelta": {
      const turn = e.turn ?? null;
      if (turn !== null) items = settle(items, agent, (i) => i.turn !== null && i.turn < turn);
      const beside = turn !== null && t.settled[who] !== undefined && turn <= t.settled[who];
      const latest = turn === null ? t.latest : { ...t.latest, [who]: turn };
      return { ...t, runId, items: append(items, beside ? "aside" : "text", agent, turn, e.text), latest };
    }
    case "IntermediateDelta":
      return { ...t, runId, items: append(items, "aside", agent, e.turn ?? null, e.text) };
    case "ReasoningStep":
      items.push({ kind: "reasoning", agent, text: e.text });
      return { ...t, runId, items };
    case "ToolCallStep": {
      const turn = t.latest[who];
      items = settle(items, agent, () => true);
      items.push({
        kind: "call",
        agent,
        tool: e.tool,
        callId: e.callId,
        args: e.args,
        resumedInterruptId: e.resumedInterruptId ?? null,
      });
      return { ...t, runId, items, settled: turn === undefined ? t.settled : { ...t.settled, [who]: turn } };
    }
    case "ToolResultStep": {
      const at = items.findIndex((i) => i.kind === "call" && i.callId === e.callId && i.agent === agent);
      const result = { value: e.result, details: e.details ?? null, isError: e.isError };
      if (at >= 0) items[at] = { ...(items[at] as Extract<TranscriptItem, { kind: "call" }>), result };
      else items.push({ kind: "call", agent, tool: e.tool, callId: e.callId, args: {}, result });
      return { ...t, runId, items };
    }
    case "ToolProgressStep":
      // A running call's update; the transcript shows the call's result once it comes.
      return { ...t, runId };
    case "RunUsage":
      items.push({
        kind: "usage",
        inputTokens: e.inputTokens ?? null,
        outputTokens: e.outputTokens ?? null,
        model: e.model ?? null,
      });
      return { ...t, runId, items };
    case "MessageFinal": {
      const turn = e.turn ?? null;
      if (turn !== null) items = settle(items, agent, (i) => i.turn !== turn);
      const answered = items.some((i) => i.kind === "text" && i.agent === agent && (turn === null || i.turn === turn));
      if (!answered) items.push({ kind: "text", agent, turn, text: e.text });
      return { ...t, runId, items, final: e };
    }
    case "StructuredFinal": {
      const turn = e.turn ?? null;
      items = settle(items, agent, (i) => i.turn !== turn).filter(
        (i) => !(i.kind === "text" && i.agent === agent && turn !== null && i.turn === turn),
      );
      return { ...t, runId, items, final: e };
    }
    default:
      // A pause (InterruptFinal, SuspendedFinal, AsksFinal): no turn of the run is its answer.
      return { ...t, runId, items: settle(items, agent, () => true), final: e };
  }
}
