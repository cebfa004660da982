import { graphql, type ResultOf, type StreamEvent } from "tai42/client";

export type { StreamEvent };

/** The registered agents and what each declares it takes (docs/agent-stream.md §1). */
export const AgentsQuery = graphql(`
  query Agents {
    agents {
      name
      description
      specRunnable
      inputSchema
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
          userMessage
          toolNames
          llmProvider
          model
          callerKey
          resumeOf
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
      startedAt
      callerKey
    }
  }
`);

export { applyEvent, emptyTranscript, type RunTranscript, type Terminal, type TranscriptItem } from "./transcript.ts";

/** One action an InterruptFinal waits on (docs/agent-stream.md §6). */
export interface InterruptAction {
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  allowedDecisions: ("approve" | "edit" | "reject")[];
  description?: string | null;
}

/** A decision on one action, as the resume takes it. */
export type Decision =
  { type: "approve" } | { type: "edit"; args: Record<string, unknown> } | { type: "reject"; message?: string };

export function interruptActions(payload: unknown): InterruptAction[] {
  const actions = (payload as { actions?: InterruptAction[] } | null)?.actions;
  return Array.isArray(actions)
    ? actions.map((a) => ({
        ...a,
        allowedDecisions: a.allowedDecisions?.length ? a.allowedDecisions : ["approve", "edit", "reject"],
      }))
    : [];
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

export type AgentInfo = ResultOf<typeof AgentsQuery>["agents"][number];
