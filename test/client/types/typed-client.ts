// Compiled, never run, by test/client/types.test.ts (`tsc -p test/client/types`, against
// the sources) and test/client/published-types.test.ts (against dist/'s declarations, in a
// user's project): each `@ts-expect-error` must meet an error (tsc fails on an unused one),
// and every other line must compile.
import {
  createTaiClient,
  graphql,
  readFragment,
  type FragmentOf,
  type ResultOf,
  type StreamEvent,
  type ToolRun,
  type VariablesOf,
} from "tai42/client";

const tai = createTaiClient({ url: "http://127.0.0.1:4000/graphql", apiKey: "key" });

const ToolQuery = graphql(`
  query Tool($name: String!) {
    tool(name: $name) {
      name
      tier
      inputSchema
      retryPolicy {
        maxAttempts
        declaredOn
      }
    }
  }
`);

export async function resultsAreTyped(): Promise<void> {
  const { tool } = await tai.request(ToolQuery, { name: "echo" });
  if (!tool) return;
  const name: string = tool.name;
  const tier: "READ" | "WRITE" | "FENCED" | "SECRET" = tool.tier;
  const schema: Record<string, unknown> = tool.inputSchema;
  const attempts: number | undefined = tool.retryPolicy?.maxAttempts;
  // @ts-expect-error a nullable object is not always there
  const declaredOn: string = tool.retryPolicy.declaredOn;
  // @ts-expect-error an enum is its values, not any string
  const lower: "read" = tool.tier;
  void [name, tier, schema, attempts, declaredOn, lower];

  const run: ToolRun = await tai.dispatch("echo", { text: "hi" });
  const status: "QUEUED" | "RUNNING" | "SUCCEEDED" | "FAILED" | "PARKED" | "CANCELLED" | "OUTCOME_UNKNOWN" = run.status;
  const startedAt: string = run.startedAt;
  const data: unknown = run.data;
  // @ts-expect-error JSON is unknown until narrowed
  const text: string = run.data;
  void [status, startedAt, data, text];
}

export async function variablesAreTyped(): Promise<void> {
  type Vars = VariablesOf<typeof ToolQuery>;
  const vars: Vars = { name: "echo" };
  await tai.request(ToolQuery, vars);
  // @ts-expect-error a variable of the wrong type
  await tai.request(ToolQuery, { name: 42 });
  // @ts-expect-error a variable the document does not declare
  await tai.request(ToolQuery, { name: "echo", nmae: "echo" });
  // @ts-expect-error a required variable left out of the object
  await tai.request(ToolQuery, {});
  // @ts-expect-error a required variable and no variables at all
  await tai.request(ToolQuery);
  // A document without variables needs none.
  await tai.request(
    graphql(`
      {
        viewer {
          role
        }
      }
    `),
  );
  // Optional variables may be left out.
  await tai.runs({ first: 10 });
  // @ts-expect-error a status is one of the RunStatus values
  await tai.runs({ status: "running" });
  // @ts-expect-error AgentRunInput has no such field
  tai.agentStream({ userMesage: "hi" });
}

const RunEventsSubscription = graphql(`
  subscription Events($runId: ID, $afterSeq: Int) {
    runEvents(runId: $runId, afterSeq: $afterSeq) {
      seq
      type
      run {
        id
        status
      }
      progress {
        message
      }
    }
  }
`);

const InteractionsSubscription = graphql(`
  subscription Changed($runId: ID!) {
    interactionsChanged(runId: $runId) {
      id
      status
    }
  }
`);

export async function subscriptionsAreTyped(): Promise<void> {
  // Right variables compile; every variable of RunEventsSubscription is optional.
  tai.subscribe(RunEventsSubscription, { runId: "run-1", afterSeq: 0 });
  tai.subscribe(RunEventsSubscription);
  tai.subscribe(InteractionsSubscription, { runId: "run-1" });
  // @ts-expect-error a variable of the wrong type (afterSeq is an Int)
  tai.subscribe(RunEventsSubscription, { afterSeq: "0" });
  // @ts-expect-error a variable the document does not declare
  tai.subscribe(RunEventsSubscription, { runId: "run-1", after: 0 });
  // @ts-expect-error a required variable and no variables at all
  tai.subscribe(InteractionsSubscription);
  // @ts-expect-error a required variable of the wrong type (an ID is a string or a number)
  tai.subscribe(InteractionsSubscription, { runId: true });

  // Each yielded value is the subscription's typed data.
  for await (const { runEvents } of tai.subscribe(RunEventsSubscription, { afterSeq: 0 })) {
    const seq: number = runEvents.seq;
    const type:
      | "RUN_QUEUED"
      | "ATTEMPT_FAILED"
      | "RUN_FINISHED"
      | "RUN_PARKED"
      | "RUN_PROGRESS"
      | "RUN_STARTED"
      | "RUN_INTERRUPTED" = runEvents.type;
    const status: "QUEUED" | "RUNNING" | "SUCCEEDED" | "FAILED" | "PARKED" | "CANCELLED" | "OUTCOME_UNKNOWN" =
      runEvents.run.status;
    const message: string | null | undefined = runEvents.progress?.message;
    // @ts-expect-error an enum is its values, not any string
    const lower: "run_started" = runEvents.type;
    // @ts-expect-error progress is null on every event but RUN_PROGRESS
    const unchecked: string | null = runEvents.progress.message;
    // @ts-expect-error a field the document did not select
    const at: string = runEvents.at;
    void [seq, type, status, message, lower, unchecked, at];
  }
  const next = await tai.subscribe(InteractionsSubscription, { runId: "run-1" }).next();
  if (!next.done) {
    const interaction: { id: string; status: "PENDING" | "ANSWERED" | "EXPIRED" | "CANCELLED" } =
      next.value.interactionsChanged;
    // @ts-expect-error the value is the data itself, not an execution result around it
    const data: unknown = next.value.data;
    void [interaction, data];
  }
}

export function unknownFieldsAreErrors(): void {
  // @ts-expect-error Viewer has no field "password"
  graphql(`
    {
      viewer {
        role
        password
      }
    }
  `);
  // @ts-expect-error nested: ContentBlock has no field "html"
  graphql(`
    query Run($id: ID!) {
      run(id: $id) {
        id
        content {
          text
          html
        }
      }
    }
  `);
  // @ts-expect-error on a union member of an inline fragment
  graphql(`
    subscription {
      agentStream(input: {}) {
        ... on MessageDelta {
          text
          tokens
        }
      }
    }
  `);
  // @ts-expect-error a fragment on a type with no such field
  graphql(`
    fragment Broken on ToolRun {
      id
      owner
    }
  `);
}

export function fragmentsAreTyped(): void {
  const RunStatusFields = graphql(`
    fragment RunStatusFields on ToolRun {
      id
      status
      errorKind
    }
  `);
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- only its type is read
  const Runs = graphql(
    `
      query Runs {
        runs(first: 5) {
          edges {
            node {
              ...RunStatusFields
            }
          }
        }
      }
    `,
    [RunStatusFields],
  );
  const render = (result: ResultOf<typeof Runs>) =>
    result.runs.edges.map((edge) => {
      const node: FragmentOf<typeof RunStatusFields> = edge.node;
      const run = readFragment(RunStatusFields, node);
      const kind: string | null = run.errorKind;
      // @ts-expect-error a masked fragment's fields are read through readFragment
      const masked = edge.node.status;
      return [run.id, run.status, kind, masked];
    });
  void render;
}

/** Narrowing on `__typename`: each member has its own fields, and the switch is exhaustive. */
export function describe(event: StreamEvent): string {
  switch (event.__typename) {
    case "MessageDelta":
    case "IntermediateDelta":
    case "MessageFinal":
    case "ReasoningStep":
      return event.text;
    case "RunUsage":
      return `${event.totalTokens ?? 0} tokens (${event.model ?? "?"})`;
    case "StructuredFinal":
      return JSON.stringify(event.data);
    case "ToolCallStep":
      return `${event.tool}(${JSON.stringify(event.args)}) #${event.callId}${event.resumedInterruptId ? ` (decided under ${event.resumedInterruptId})` : ""}`;
    case "ToolResultStep":
      return `${event.tool} → ${event.isError ? "error" : "ok"} ${JSON.stringify(event.details)}`;
    case "ToolProgressStep":
      return `${event.tool} #${event.callId}: ${event.message ?? ""} ${event.progress ?? "?"}/${event.total ?? "?"}`;
    case "InterruptFinal":
      return `${event.interruptId}: ${event.reason ?? ""}`;
    case "SuspendedFinal":
      return event.interactionIds.join(",");
    case "AsksFinal":
      return `${event.asks.length} asks`;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

export function baseFieldsOnEveryMember(event: StreamEvent): [number, string, boolean] {
  // @ts-expect-error only MessageDelta, IntermediateDelta, MessageFinal and ReasoningStep have text
  const text: string = event.text;
  void text;
  return [event.seq, event.runId, event.final];
}

export function aMissingCaseIsAnError(event: StreamEvent): string {
  switch (event.__typename) {
    case "MessageFinal":
      return event.text;
    default: {
      // @ts-expect-error the other members reach the default
      const unreachable: never = event;
      return unreachable;
    }
  }
}
