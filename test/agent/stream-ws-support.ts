import { afterEach, expect } from "vitest";
import type { Client } from "graphql-ws";
import type { ScriptedToolCall, ScriptView } from "../../src/agent/providers/scripted-model.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { collect, wsClient, type Collected } from "../graphql/support.ts";
import { agentTestApp } from "./fixtures.ts";

export const AGENT_STREAM = /* GraphQL */ `
  subscription S($input: AgentRunInput!, $afterSeq: Int, $runId: ID) {
    agentStream(input: $input, afterSeq: $afterSeq, runId: $runId) {
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
      }
      ... on MessageFinal {
        text
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
      }
      ... on ToolCallStep {
        tool
        args
        callId
      }
      ... on ToolResultStep {
        tool
        callId
        result
        isError
      }
      ... on InterruptFinal {
        interruptId
        payload
        reason
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
`;

/** One agentStream event as the tests read it. */
export interface Ev {
  __typename: string;
  type: string;
  final: boolean;
  seq: number;
  runId: string;
  agent: string | null;
  [field: string]: unknown;
}

/** The model asks for `call` first; once it sees a tool result, it answers `answer`. */
export const callThenAnswer =
  (call: ScriptedToolCall, answer = "All done.") =>
  (view: ScriptView) =>
    view.prompt.at(-1)?.role === "tool" ? { text: answer } : { toolCalls: [call] };

/**
 * A server over the agent test app per test, on a real socket (stopped after each), and
 * what the agentStream tests do with it.
 */
export function agentStreamServer() {
  let rt: TestRuntime | undefined;
  let server: TaiServer | undefined;
  let url = "";
  let userKey = "";
  const clients: Client[] = [];

  async function start(): Promise<TestRuntime> {
    rt = await testRuntime({ app: agentTestApp() });
    server = buildApp(rt);
    url = await server.start(0, "127.0.0.1");
    userKey = await rt.keys.create("agent-user", "USER");
    return rt;
  }

  function client(key = userKey): Client {
    const c = wsClient(url, { connectionParams: { authorization: `Bearer ${key}` } });
    clients.push(c);
    return c;
  }

  afterEach(async () => {
    for (const c of clients.splice(0)) await c.dispose();
    await server?.stop();
    await rt?.dispose();
    rt = server = undefined;
  });

  /** Streams a run to its end over a socket and returns its events. */
  async function stream(
    variables: Record<string, unknown>,
    c = client(),
  ): Promise<{ events: Ev[]; sub: Collected<{ agentStream: Ev }> }> {
    const sub = collect<{ agentStream: Ev }>(c, AGENT_STREAM, variables);
    await sub.waitForEnd(15_000);
    return { events: sub.data.map((d) => d.agentStream), sub };
  }

  const kinds = (events: Ev[]) => events.map((e) => e.type);

  /** Every run ends with exactly one terminal, last, and numbers its events 1..n. */
  function expectWellFormed(events: Ev[], sub: Collected<unknown>) {
    expect(sub.errors).toEqual([]);
    expect(sub.completed).toBe(true);
    expect(events.filter((e) => e.final)).toEqual([events.at(-1)]);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(new Set(events.map((e) => e.runId)).size).toBe(1);
  }

  async function http<T = Record<string, any>>(
    query: string,
    variables: Record<string, unknown>,
    key = userKey,
  ): Promise<{ data?: T; errors?: { message: string; extensions?: Record<string, any> }[] }> {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as never;
  }

  return { start, client, stream, kinds, expectWellFormed, http, url: () => url, userKey: () => userKey };
}
