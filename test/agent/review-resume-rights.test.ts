import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { park } from "../../src/interactions/park.ts";
import { until } from "../graphql/support.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { ofType, runToEnd, useScript } from "./support.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

/**
 * A fenced tool curated off the API (agents still reach it; tiers decide who runs it), a parking tool, and a secret
 * one.
 */
function rightsApp(ran: string[]): App {
  const app = new App();
  app.tool(
    { name: "curated_fenced", description: "Fenced.", input: z.object({}), apiTool: false, tier: "fenced" },
    () => {
      ran.push("curated_fenced");
      return "F";
    },
  );
  app.tool(
    { name: "approve_spend", description: "Asks a person.", input: z.object({ amount: z.number() }), pauses: true },
    ({ amount }) => park({ interactions: [{ question: `Approve ${amount}?`, expiresInSeconds: 3600 }] }),
  );
  app.tool(
    { name: "vault_read", description: "Reads a secret.", input: z.object({ name: z.string() }), tier: "secret" },
    ({ name }) => ({ secret: `s3cr3t-for-${name}` }),
  );
  return app;
}

describe("a resume or a fork never raises the rights the conversation ran with (docs/security-model.md §1)", () => {
  it("should keep a USER's run at USER after an ADMIN resumes it, through every later continuation, so its fenced call is refused", async () => {
    const ran: string[] = [];
    rt = await testRuntime({ app: rightsApp(ran) });
    useScript(rt.agents, "s", [
      { toolCalls: [{ toolName: "approve_spend", input: { amount: 1 } }] },
      { toolCalls: [{ toolName: "approve_spend", input: { amount: 2 } }] },
      { toolCalls: [{ toolName: "curated_fenced", input: {} }] },
      { text: "ok" },
    ]);
    const options = { llmProvider: "s", toolNames: ["approve_spend", "curated_fenced"] };
    const first = await runToEnd(rt.agents, { ...options, userMessage: "go" }, as("USER"));
    const [firstPark] = ofType(first.log, "suspended_final");
    const second = await runToEnd(
      rt.agents,
      { ...options, threadId: first.started.threadId, resume: { answers: { [firstPark.interactionIds[0]]: "yes" } } },
      as("ADMIN"),
    );
    expect(await rt.agents.store.get(second.started.runId)).toMatchObject({ status: "SUSPENDED", callerRole: "USER" });
    const [secondPark] = ofType(second.log, "suspended_final");
    await rt.agents.services.interactions!.answer(secondPark.interactionIds[0], "yes", as("ADMIN"));
    await until(
      "the continuation to end",
      async () => (await rt!.agents.store.get(second.started.runId))?.status === "SUCCEEDED",
    );
    const log = await rt.agents.store.events(second.started.runId, 0);
    expect(ofType(log, "tool_result_step").find((e) => e.tool === "curated_fenced")).toMatchObject({
      isError: true,
      result: { kind: "PERMISSION_DENIED" },
    });
    expect(ran).toEqual([]);
  });

  it("should fork a USER's failed run at USER when an ADMIN forks it, so its fenced call is refused", async () => {
    const ran: string[] = [];
    rt = await testRuntime({ app: rightsApp(ran) });
    useScript(rt.agents, "s", [
      { error: "boom" },
      { toolCalls: [{ toolName: "curated_fenced", input: {} }] },
      { text: "ok" },
    ]);
    const failed = await runToEnd(
      rt.agents,
      { userMessage: "go", llmProvider: "s", toolNames: ["curated_fenced"] },
      as("USER"),
    );
    expect(await rt.agents.store.get(failed.started.runId)).toMatchObject({ status: "FAILED" });
    const fork = await runToEnd(
      rt.agents,
      { threadId: failed.started.threadId, resumeCheckpointId: failed.started.runId },
      as("ADMIN"),
    );
    expect(await rt.agents.store.get(fork.started.runId)).toMatchObject({ callerRole: "USER" });
    expect(ofType(fork.log, "tool_result_step")).toEqual([
      expect.objectContaining({
        tool: "curated_fenced",
        isError: true,
        result: expect.objectContaining({ kind: "PERMISSION_DENIED" }),
      }),
    ]);
    expect(ran).toEqual([]);
  });
});

describe("a secret-tier result the model repeats is never stored or served (docs/security-model.md §3)", () => {
  it("should scrub a secret echoed into ask_caller from its interaction, its tool run's input and the paused run's checkpoint", async () => {
    rt = await testRuntime({ app: rightsApp([]) });
    useScript(rt.agents, "s", [
      { toolCalls: [{ toolName: "vault_read", input: { name: "xyz" } }] },
      { toolCalls: [{ toolName: "ask_caller", input: { question: "Is s3cr3t-for-xyz right?" } }] },
      { text: "ok" },
    ]);
    const { started, log } = await runToEnd(
      rt.agents,
      { userMessage: "go", llmProvider: "s", toolNames: ["vault_read"] },
      as("ADMIN"),
    );
    const [asks] = ofType(log, "asks_final");
    expect(asks.asks).toEqual([expect.objectContaining({ question: "Is [redacted] right?" })]);
    const interactions = await rt.db.interaction.findMany();
    expect(interactions.map((i) => i.question)).toEqual(["Is [redacted] right?"]);
    const runs = await rt.db.run.findMany({ where: { tool: "ask_caller" } });
    expect(JSON.stringify(runs.map((r) => r.input))).not.toContain("s3cr3t");
    expect(JSON.stringify(await rt.db.agentRun.findUnique({ where: { id: started.runId } }))).not.toContain("s3cr3t");
  });
});
