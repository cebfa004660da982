import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { sseReader, until } from "../graphql/support.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { useScript } from "./support.ts";

const QUERY = `subscription($input: AgentRunInput!) {
  agentStream(input: $input) {
    __typename
    ... on MessageDelta { text turn }
    ... on IntermediateDelta { text turn }
    ... on MessageFinal { text turn }
    ... on ToolCallStep { tool resumedInterruptId }
    ... on ToolResultStep { tool result details isError }
    ... on InterruptFinal { interruptId }
  }
}`;

type Ev = {
  __typename: string;
  text?: string;
  turn?: number | null;
  tool?: string;
  result?: unknown;
  details?: unknown;
  interruptId?: string;
  resumedInterruptId?: string | null;
};

describe("MessageDelta is a token-level chunk of the final answer, interrupt_id is echoed back when resuming: over GraphQL (SSE)", () => {
  let rt: TestRuntime;
  let server: TaiServer;
  beforeAll(async () => {
    rt = await testRuntime();
    server = buildApp(rt);
  });
  afterAll(async () => {
    await rt?.dispose();
  });

  async function events(input: Record<string, unknown>): Promise<Ev[]> {
    const res = await server.yoga.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ query: QUERY, variables: { input } }),
    });
    const reader = sseReader(res);
    await until("the stream to end", () => reader.ended(), 15_000);
    const nexts = reader.nexts<{ agentStream: Ev }>();
    expect(nexts.flatMap((n) => (n as { errors?: unknown[] }).errors ?? [])).toEqual([]);
    return nexts.map((n) => n.data!.agentStream);
  }
  const join = (evs: Ev[], typename: string, turn?: number) =>
    evs
      .filter((e) => e.__typename === typename && (turn === undefined || e.turn === turn))
      .map((e) => e.text)
      .join("");

  it("should give a client that joins the MessageDeltas of the terminal's turn exactly the final answer, the text beside tool calls being an earlier turn", async () => {
    useScript(rt.agents, "gql-s", [
      { text: "Let me check that.", toolCalls: [{ toolName: "echo", input: { text: "hi" } }] },
      { text: "Here is what I found." },
    ]);
    const evs = await events({ userMessage: "go", toolNames: ["echo"], llmProvider: "gql-s" });
    expect(evs.at(-1)).toEqual({ __typename: "MessageFinal", text: "Here is what I found.", turn: 2 });
    expect(join(evs, "MessageDelta", 2)).toBe("Here is what I found.");
    expect(join(evs, "MessageDelta", 1)).toBe("Let me check that.");
    expect(join(evs, "IntermediateDelta")).toBe("");
    expect(evs.find((e) => e.__typename === "ToolResultStep")).toEqual({
      __typename: "ToolResultStep",
      tool: "echo",
      result: "hi",
      details: null,
      isError: false,
    });
  });

  it("should echo the interruptId a resume names on the resumed run's ToolCallSteps", async () => {
    useScript(rt.agents, "gql-i", [{ toolCalls: [{ toolName: "echo", input: { text: "gated" } }] }, { text: "Done." }]);
    const threadId = `gql-interrupt-${Date.now()}`;
    const paused = await events({
      threadId,
      userMessage: "go",
      toolNames: ["echo"],
      interruptOn: { echo: true },
      llmProvider: "gql-i",
    });
    const { interruptId } = paused.at(-1)!;
    expect(paused.at(-1)!.__typename).toBe("InterruptFinal");
    const resumed = await events({ threadId, resume: { interruptId, decisions: [{ type: "approve" }] } });
    expect(resumed.find((e) => e.__typename === "ToolCallStep")).toEqual({
      __typename: "ToolCallStep",
      tool: "echo",
      resumedInterruptId: interruptId,
    });
    expect(resumed.at(-1)).toEqual({ __typename: "MessageFinal", text: "Done.", turn: 1 });
  });
});
