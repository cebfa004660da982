import { graphql, type ResultOf, type StreamEvent } from "tai42/client";

export type { StreamEvent };

export const AgentsQuery = graphql(`
  query Agents {
    agents {
      name
      description
      specRunnable
    }
  }
`);

/** The caller's latest agent runs (every run for an ADMIN), newest first. */
export const AgentRunsQuery = graphql(`
  query AgentRuns($first: Int) {
    agentRuns(first: $first) {
      edges {
        node {
          id
          agent
          status
          startedAt
          threadId
        }
      }
    }
  }
`);
export type AgentRunItem = ResultOf<typeof AgentRunsQuery>["agentRuns"]["edges"][number]["node"];

/** The thread a run belongs to (every run has one: the given one or a new one). */
export const AgentRunQuery = graphql(`
  query AgentRun($id: ID!) {
    agentRun(id: $id) {
      id
      threadId
      status
    }
  }
`);

/** One line of a run's transcript, built from its events. */
export type TranscriptItem =
  | { kind: "text"; agent: string | null; text: string }
  /** Text a model turn emitted alongside its tool calls (or a sub-agent's): not the answer. */
  | { kind: "aside"; agent: string | null; text: string }
  | { kind: "reasoning"; agent: string | null; text: string }
  | { kind: "call"; agent: string | null; tool: string; callId: string; args: Record<string, unknown>; result?: { value: unknown; details: unknown; isError: boolean } }
  | { kind: "usage"; inputTokens: number | null; outputTokens: number | null; model: string | null };

/** The terminal members a run can end with. */
export type Terminal = Extract<StreamEvent, { __typename: "MessageFinal" | "StructuredFinal" | "InterruptFinal" | "SuspendedFinal" | "AsksFinal" }>;

/** What the transcript of one run holds so far. */
export interface RunTranscript {
  runId: string | null;
  items: TranscriptItem[];
  final: Terminal | null;
}

export const emptyTranscript = (): RunTranscript => ({ runId: null, items: [], final: null });

/**
 * Folds one event into a transcript. Consecutive deltas of the same member and speaker
 * join one line: the answer (MessageDelta) and text aside from it (IntermediateDelta) are
 * kept apart; a result goes beside its call; the terminal is kept apart. A `MessageFinal`
 * repeats the streamed answer, so it adds a line only when nothing streamed.
 */
export function applyEvent(t: RunTranscript, e: StreamEvent): RunTranscript {
  const items = [...t.items];
  const last = items.at(-1);
  const runId = t.runId ?? e.runId;
  switch (e.__typename) {
    case "MessageDelta":
    case "IntermediateDelta": {
      const kind = e.__typename === "MessageDelta" ? "text" : "aside";
      if (last?.kind === kind && last.agent === (e.agent ?? null)) items[items.length - 1] = { ...last, text: last.text + e.text };
      else items.push({ kind, agent: e.agent ?? null, text: e.text });
      return { ...t, runId, items };
    }
    case "ReasoningStep":
      items.push({ kind: "reasoning", agent: e.agent ?? null, text: e.text });
      return { ...t, runId, items };
    case "ToolCallStep":
      items.push({ kind: "call", agent: e.agent ?? null, tool: e.tool, callId: e.callId, args: e.args });
      return { ...t, runId, items };
    case "ToolResultStep": {
      const at = items.findIndex((i) => i.kind === "call" && i.callId === e.callId && i.agent === (e.agent ?? null));
      const result = { value: e.result, details: e.details ?? null, isError: e.isError };
      if (at >= 0) items[at] = { ...(items[at] as Extract<TranscriptItem, { kind: "call" }>), result };
      else items.push({ kind: "call", agent: e.agent ?? null, tool: e.tool, callId: e.callId, args: {}, result });
      return { ...t, runId, items };
    }
    case "ToolProgressStep":
      // A running call's update; the transcript shows the call's result once it comes.
      return { ...t, runId };
    case "RunUsage":
      items.push({ kind: "usage", inputTokens: e.inputTokens ?? null, outputTokens: e.outputTokens ?? null, model: e.model ?? null });
      return { ...t, runId, items };
    case "MessageFinal":
      if (!items.some((i) => i.kind === "text" && i.agent === null)) items.push({ kind: "text", agent: null, text: e.text });
      return { runId, items, final: e };
    default:
      return { runId, items, final: e };
  }
}

/** One action an InterruptFinal waits on (docs/agent-stream.md §6). */
export interface InterruptAction {
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  allowedDecisions: ("approve" | "edit" | "reject")[];
  description?: string | null;
}

/** A decision on one action, as the resume takes it. */
export type Decision = { type: "approve" } | { type: "edit"; args: Record<string, unknown> } | { type: "reject"; message?: string };

export function interruptActions(payload: unknown): InterruptAction[] {
  const actions = (payload as { actions?: InterruptAction[] } | null)?.actions;
  return Array.isArray(actions) ? actions.map((a) => ({ ...a, allowedDecisions: a.allowedDecisions?.length ? a.allowedDecisions : ["approve", "edit", "reject"] })) : [];
}

/** One question an AsksFinal asks the caller: the full parked entry (docs/agent-stream.md §8). */
export interface Ask {
  /** The interaction's id: the interactions screen answers it too. */
  id: string;
  callId?: string;
  question: string;
  answerFormat?: Record<string, unknown> | null;
  to?: "caller";
  /** When it expires unanswered (ISO-8601); null: never. */
  expiryAt?: string | null;
  status?: "PENDING" | "ANSWERED" | "EXPIRED" | "CANCELLED";
}
