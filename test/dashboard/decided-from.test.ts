import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTaiClient, type AgentRunInput } from "../../src/client/index.ts";
import { buildApp } from "../../src/server/build-app.ts";
import { decidedFrom } from "../../src/dashboard/api/decisions.ts";
import { applyEvent, emptyTranscript, interruptActions, type RunTranscript } from "../../src/dashboard/api/agents.ts";
import { useScript } from "../agent/support.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

// The decided approval card's facts (issue 30, reviewed): read from what the resumed run streamed, through the real
// client over SSE, folded by the dashboard's own transcript code.

describe("what a decided approval card says was run", () => {
  let rt: TestRuntime;
  let client: ReturnType<typeof createTaiClient>;

  beforeAll(async () => {
    rt = await testRuntime();
    const server = buildApp(rt);
    const key = await rt.keys.create("ann", "USER");
    client = createTaiClient({
      url: "http://localhost/graphql",
      apiKey: key,
      transport: "sse",
      fetch: (async (input: string, init?: RequestInit) =>
        server.yoga.fetch(new URL(input), init ?? {})) as typeof fetch,
    });
  });
  afterAll(() => rt.dispose());

  async function transcript(input: AgentRunInput): Promise<RunTranscript> {
    let t = emptyTranscript();
    for await (const e of client.agentStream(input)) t = applyEvent(t, e);
    return t;
  }

  it("should say a call edited to no arguments ran with none, not that it was approved with the arguments asked for", async () => {
    useScript(rt.agents, "edit-empty", [
      { toolCalls: [{ toolName: "clock", input: { timeZone: "Europe/Paris" } }] },
      { text: "Done." },
    ]);
    const threadId = "decided-edit-empty";
    const paused = await transcript({
      threadId,
      userMessage: "what time is it?",
      toolNames: ["clock"],
      interruptOn: { clock: true },
      llmProvider: "edit-empty",
    });
    const final = paused.final;
    if (final?.__typename !== "InterruptFinal") throw new Error(`expected an interrupt, got ${final?.__typename}`);
    const actions = interruptActions(final.payload);
    expect(actions.map((a) => a.args)).toEqual([{ timeZone: "Europe/Paris" }]);

    const resume = { interruptId: final.interruptId, decisions: [{ type: "edit", args: {} }] };
    const resumed = await transcript({ threadId, resume, resumeCheckpointId: final.runId });
    const decided = decidedFrom(final.interruptId, actions, resumed, "2026-01-01T00:00:00.000Z", "ann");
    expect(decided?.actions).toEqual([expect.objectContaining({ tool: "clock", type: "edit", args: {} })]);
  });
});
