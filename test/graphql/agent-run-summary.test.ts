import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { excerpt } from "../../src/graphql/agent-run-summary.ts";
import { useScript } from "../agent/support.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

// AgentRun's summary fields (issue 30): what tells agent runs apart in a list.

const RUN = `mutation($i: AgentRunInput!) { runAgent(input: $i) { runId } }`;
const SUMMARY = `query($id: ID!) { agentRun(id: $id) { userMessage toolNames llmProvider model callerKey resumeOf } }`;

describe("AgentRun's summary fields", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let key: string;

  beforeAll(async () => {
    rt = await testRuntime();
    gql = gqlClient(rt);
    useScript(rt.agents, "hello", () => ({ text: "Hello." }));
    key = await rt.keys.create("dev", "USER");
  });
  afterAll(() => rt.dispose());

  it("should cut a long message at its last word boundary within the limit, with an ellipsis, and leave a short one whole", () => {
    expect(excerpt("What   is\n6 times 7?")).toBe("What is 6 times 7?");
    expect(excerpt("alpha beta gamma delta", 12)).toBe("alpha beta…");
    expect(excerpt("alpha beta", 10)).toBe("alpha beta");
    // A single word longer than the limit is cut inside it: there is no boundary to cut at.
    expect(excerpt("x".repeat(30), 10)).toBe(`${"x".repeat(10)}…`);
  });

  it("should serve the message, tools, provider, model and key a run started with, and no resumed run for a new one", async () => {
    const message = `Tell me about ${"the weather ".repeat(20)}today`;
    const started = await gql<{ runAgent: { runId: string } }>(
      RUN,
      { i: { userMessage: message, llmProvider: "hello", llmKwargs: { model: "demo-1" }, toolNames: ["clock"] } },
      key,
    );
    expect(started.errors).toBeUndefined();
    const { data, errors } = await gql<{ agentRun: Record<string, unknown> }>(
      SUMMARY,
      { id: started.data!.runAgent.runId },
      key,
    );
    expect(errors).toBeUndefined();
    expect(data!.agentRun).toEqual({
      userMessage: excerpt(message),
      toolNames: ["clock"],
      llmProvider: "hello",
      model: "demo-1",
      callerKey: "dev",
      resumeOf: null,
    });
    expect((data!.agentRun.userMessage as string).endsWith("weather…")).toBe(true);
  });
});
