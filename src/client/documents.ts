import { graphql, type ResultOf, type Undefinable, type VariablesOf } from "./graphql.ts";

/** Every field of a run the client's own operations select. */
export const ToolRunFields = graphql(`
  fragment ToolRunFields on ToolRun @_unmask {
    id
    tool
    status
    input
    content {
      type
      text
      data
      mimeType
    }
    data
    details
    isError
    errorKind
    errorMessage
    terminate
    attempts {
      number
      startedAt
      finishedAt
      errorKind
      errorMessage
      waitSeconds
    }
    interactions {
      id
      runId
      question
      to
      answerFormat
      status
      expiresAt
      answer
    }
    parentRunId
    door
    startedAt
    finishedAt
  }
`);

/** A run, as `dispatch`, `run`, `runs`, `answerInteraction` and `runEvents` return it. */
export type ToolRun = ResultOf<typeof ToolRunFields>;

export const DispatchMutation = graphql(
  `
    mutation Dispatch($input: DispatchInput!) {
      dispatch(input: $input) {
        ...ToolRunFields
      }
    }
  `,
  [ToolRunFields],
);

export const RunQuery = graphql(
  `
    query Run($id: ID!) {
      run(id: $id) {
        ...ToolRunFields
      }
    }
  `,
  [ToolRunFields],
);

export const RunsQuery = graphql(
  `
    query Runs(
      $tool: String
      $status: RunStatus
      $door: Door
      $parentRunId: ID
      $startedAfter: DateTime
      $startedBefore: DateTime
      $first: Int
      $after: String
    ) {
      runs(
        tool: $tool
        status: $status
        door: $door
        parentRunId: $parentRunId
        startedAfter: $startedAfter
        startedBefore: $startedBefore
        first: $first
        after: $after
      ) {
        edges {
          cursor
          node {
            ...ToolRunFields
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
        totalCount
      }
    }
  `,
  [ToolRunFields],
);

/**
 * One page of runs, newest first: `pageInfo.endCursor` is the `after` of the next page; `totalCount` counts every run
 * under the filter.
 */
export type ToolRunPage = ResultOf<typeof RunsQuery>["runs"];

/** What `runs` filters on (every field optional; times are ISO-8601). */
export type RunsFilter = Undefinable<Omit<VariablesOf<typeof RunsQuery>, "first" | "after">> & {
  first?: number | undefined;
  after?: string | undefined;
};

export const AgentRunsQuery = graphql(`
  query AgentRuns($status: AgentRunStatus, $agent: String, $first: Int, $after: String) {
    agentRuns(status: $status, agent: $agent, first: $first, after: $after) {
      edges {
        cursor
        node {
          id
          agent
          status
          threadId
          lastSeq
          startedAt
          finishedAt
          errorKind
          errorMessage
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
      totalCount
    }
  }
`);

/** One page of agent runs, newest first. */
export type AgentRunPage = ResultOf<typeof AgentRunsQuery>["agentRuns"];

/** What `agentRuns` filters on. */
export type AgentRunsFilter = {
  status?: VariablesOf<typeof AgentRunsQuery>["status"] | undefined;
  agent?: string | undefined;
  first?: number | undefined;
  after?: string | undefined;
};

export const AnswerInteractionMutation = graphql(
  `
    mutation AnswerInteraction($id: ID!, $answer: JSON!) {
      answerInteraction(id: $id, answer: $answer) {
        ...ToolRunFields
      }
    }
  `,
  [ToolRunFields],
);

export const RunEventsSubscription = graphql(
  `
    subscription RunEvents($runId: ID, $tool: String, $afterSeq: Int) {
      runEvents(runId: $runId, tool: $tool, afterSeq: $afterSeq) {
        seq
        type
        at
        run {
          ...ToolRunFields
        }
      }
    }
  `,
  [ToolRunFields],
);

/** One run event: `seq` orders every event of the log (docs/run-lifecycle.md §6). */
export type RunEvent = ResultOf<typeof RunEventsSubscription>["runEvents"];

export const AgentStreamSubscription = graphql(`
  subscription AgentStream($input: AgentRunInput!, $runId: ID, $afterSeq: Int) {
    agentStream(input: $input, runId: $runId, afterSeq: $afterSeq) {
      __typename
      ... on StreamEventBase {
        type
        final
        seq
        runId
        agent
      }
      ... on MessageDelta {
        text
        turn
      }
      ... on IntermediateDelta {
        text
        turn
      }
      ... on MessageFinal {
        text
        turn
      }
      ... on ReasoningStep {
        text
      }
      ... on RunUsage {
        inputTokens
        outputTokens
        totalTokens
        model
      }
      ... on StructuredFinal {
        data
        turn
      }
      ... on ToolCallStep {
        tool
        args
        callId
        resumedInterruptId
      }
      ... on ToolResultStep {
        tool
        callId
        result
        details
        isError
      }
      ... on ToolProgressStep {
        tool
        callId
        toolRunId
        message
        progress
        total
        details
      }
      ... on InterruptFinal {
        interruptId
        payload
        reason
        threadId
      }
      ... on SuspendedFinal {
        interactionIds
        threadId
        callerInteractionIds
        expiryAt
      }
      ... on AsksFinal {
        asks
      }
    }
  }
`);

/**
 * One event of an agent run: a union that narrows on `__typename` (docs/agent-stream.md §2).
 * Every member carries `type`, `final`, `seq`, `runId` and `agent`.
 */
export type StreamEvent = ResultOf<typeof AgentStreamSubscription>["agentStream"];

/** The input of an agent run (`AgentRunInput`). */
export type AgentRunInput = VariablesOf<typeof AgentStreamSubscription>["input"];

/** A run status, as `runs({ status })` filters on it. */
export type RunStatus = NonNullable<VariablesOf<typeof RunsQuery>["status"]>;

export const RetryRunMutation = graphql(
  `
    mutation RetryRun($id: ID!) {
      retryRun(id: $id) {
        ...ToolRunFields
      }
    }
  `,
  [ToolRunFields],
);

export const SettleRunMutation = graphql(
  `
    mutation SettleRun($id: ID!, $status: SettledStatus!, $message: String) {
      settleRun(id: $id, status: $status, message: $message) {
        ...ToolRunFields
      }
    }
  `,
  [ToolRunFields],
);

/** How an operator settles an OUTCOME_UNKNOWN run (`settleRun`). */
export type SettledStatus = VariablesOf<typeof SettleRunMutation>["status"];
