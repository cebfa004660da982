import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, App, drain, z, type AgentContext, type AgentRunOptions } from "../../src/index.ts";
import type { AgentPrepareContext } from "../../src/agent/agent.ts";
import { ToolsAgent } from "../../src/agent/tools-agent/tools-agent.ts";
import { useScript } from "../agent/support.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

// AgentRun's summary fields (issue 30), reviewed: who reads them, what a secret-tier run serves, what resumeOf names.

/** An agent its author keeps secret: its own surface entry is secret-tier, so its input is never served. */
class SealedAgent extends Agent {
  static override toolName = "sealed_agent";
  static override toolDescription = "Answers about the vault.";
  static override tier = "secret" as const;
  static override ToolInput = z.object({ userMessage: z.string(), llmProvider: z.string().optional() });
  readonly #loop = new ToolsAgent();
  override prepare(options: AgentRunOptions, ctx: AgentPrepareContext): Promise<unknown> {
    return this.#loop.prepare(options, ctx);
  }
  override astream(options: AgentRunOptions, ctx: AgentContext) {
    return this.#loop.astream(options, ctx);
  }
  override run(options: AgentRunOptions, ctx: AgentContext): Promise<unknown> {
    return drain(this.astream(options, ctx));
  }
}

const RUN = `mutation($i: AgentRunInput!) { runAgent(input: $i) { runId } }`;
const ONE = `query($id: ID!) { agentRun(id: $id) { id userMessage toolNames llmProvider callerKey resumeOf status } }`;
const LIST = `{ agentRuns(first: 50) { edges { node { id userMessage callerKey } } } }`;
const DISPATCH = `mutation($input: DispatchInput!) { dispatch(input: $input) { id input status } }`;

describe("AgentRun's summary fields, reviewed", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    const app = new App();
    app.agent(SealedAgent);
    app.tool(
      { name: "redactor", description: "Redacts a value.", input: z.object({ value: z.string() }) },
      ({ value }, ctx) => {
        ctx.redact(value);
        return "ok";
      },
    );
    rt = await testRuntime({ app, env: { TAI_ANONYMOUS_ROLE: "READER" } });
    gql = gqlClient(rt);
    useScript(rt.agents, "hello", () => ({ text: "Hello." }));
    keys.ann = await rt.keys.create("ann", "USER");
    keys.bob = await rt.keys.create("bob", "USER");
    keys.reader = await rt.keys.create("rita", "READER");
    keys.boss = await rt.keys.create("boss", "ADMIN");
  });
  afterAll(() => rt.dispose());

  async function start(input: Record<string, unknown>, key?: string): Promise<string> {
    const started = await gql<{ runAgent: { runId: string } }>(RUN, { i: input }, key);
    expect(started.errors).toBeUndefined();
    return started.data!.runAgent.runId;
  }

  it("should serve a run's message and key to its own key and an ADMIN only, never to another key, a READER or an anonymous caller", async () => {
    const id = await start({ userMessage: "ann's private plan for Friday", llmProvider: "hello" }, keys.ann);
    const own = await gql(ONE, { id }, keys.ann);
    expect(own.data!.agentRun).toMatchObject({ userMessage: "ann's private plan for Friday", callerKey: "ann" });
    expect((await gql(ONE, { id }, keys.boss)).data!.agentRun).toMatchObject({ callerKey: "ann" });
    for (const key of [keys.bob, keys.reader, undefined]) {
      const other = await gql(ONE, { id }, key);
      expect(other.data!.agentRun).toBeNull();
      const list = await gql(LIST, {}, key);
      expect(list.text).not.toContain("private plan");
      expect(list.text).not.toContain('"ann"');
    }
  });

  it("should serve a secret-tier agent's message as [redacted], to its ADMIN starter too, as the tool run of the same call stores it", async () => {
    const id = await start(
      {
        agent: "sealed_agent",
        userMessage: "open the vault with code 7319-alpha",
        llmProvider: "hello",
        toolNames: ["clock"],
      },
      keys.boss,
    );
    const run = await gql(ONE, { id }, keys.boss);
    expect(run.data!.agentRun).toMatchObject({ userMessage: "[redacted]", toolNames: null, llmProvider: null });
    expect(run.text).not.toContain("7319-alpha");

    const dispatched = await gql(
      DISPATCH,
      { input: { tool: "sealed_agent", input: { userMessage: "the vault code is 8842-bravo", llmProvider: "hello" } } },
      keys.boss,
    );
    expect(dispatched.errors).toBeUndefined();
    expect(dispatched.data!.dispatch).toMatchObject({ status: "SUCCEEDED", input: "[redacted]" });
    const list = await gql(LIST, {}, keys.boss);
    expect(list.errors).toBeUndefined();
    expect(list.text).not.toContain("8842-bravo");
    expect(list.text).not.toContain("7319-alpha");
  });

  it("should name the paused run in resumeOf whether or not the resume echoed resumeCheckpointId", async () => {
    for (const echo of [false, true]) {
      const threadId = `review-resume-${String(echo)}`;
      const llmProvider = `gate-${String(echo)}`;
      useScript(rt.agents, llmProvider, [
        { toolCalls: [{ toolName: "echo", input: { text: "hi" } }] },
        { text: "Done." },
      ]);
      const base = { threadId, toolNames: ["echo"], interruptOn: { echo: true }, llmProvider };
      const paused = await start({ ...base, userMessage: "go" }, keys.ann);
      await expect
        .poll(async () => (await gql(ONE, { id: paused }, keys.ann)).data!.agentRun.status)
        .toBe("INTERRUPTED");
      const resume = { decisions: [{ type: "approve" }] };
      const resumed = await start({ threadId, resume, ...(echo ? { resumeCheckpointId: paused } : {}) }, keys.ann);
      const run = await gql(ONE, { id: resumed }, keys.ann);
      expect(run.data!.agentRun).toMatchObject({ resumeOf: paused, userMessage: null, callerKey: "ann" });
      expect((await gql(ONE, { id: paused }, keys.ann)).data!.agentRun.resumeOf).toBeNull();
    }
  });

  it("should scrub a message whole before cutting its excerpt, so a secret the cut splits leaves no part of it", async () => {
    // A passphrase: the word-boundary cut at 160 characters falls inside it.
    const phrase = "Zq81Lm44 Xv09Rt77 Pp3k";
    const message = `${"word ".repeat(30)}${phrase} and more words after it`;
    const id = await start({ userMessage: message, llmProvider: "hello" }, keys.ann);
    // Redacted after the run stored its input: only the serving boundary can hide it now.
    const redacted = await gql(DISPATCH, { input: { tool: "redactor", input: { value: phrase } } }, keys.ann);
    expect(redacted.data!.dispatch.status).toBe("SUCCEEDED");
    const run = await gql(ONE, { id }, keys.ann);
    expect(run.data!.agentRun.userMessage).toMatch(/^word word .*\[red/);
    expect(run.text).not.toContain("Zq81Lm44");
  });
});
