import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptView, ScriptedTurn } from "../../src/agent/providers/scripted-model.ts";
import { MAX_MODEL_LABELS, Metrics } from "../../src/ops/metrics.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { until } from "../graphql/support.ts";
import { gqlClient } from "../helpers/gql.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { get, sample } from "../ops/support.ts";
import { agentTestApp } from "./fixtures.ts";
import { runToEnd, useScript } from "./support.ts";

/**
 * Token usage totals (docs/agent-stream.md §2.4): per run (sub-agents included), per
 * thread and per key over GraphQL, and `tai42_llm_tokens_total` on a real `/metrics`.
 * Runs on the database TAI_TEST_DB selects.
 */

const RUN = /* GraphQL */ `
  mutation ($input: AgentRunInput!) {
    runAgent(input: $input) {
      runId
      threadId
      final {
        __typename
        ... on InterruptFinal {
          interruptId
          threadId
        }
      }
    }
  }
`;
const USAGE = "{ inputTokens outputTokens totalTokens runs }";

/**
 * The parent calls "helper" once (10 in, 2 out), the helper answers (5 in, 1 out), the parent answers (7 in, 3 out);
 * any other prompt answers at 1 in, 1 out.
 */
function script(view: ScriptView): ScriptedTurn {
  const system = (view.prompt[0].content as string) ?? "";
  const last = view.prompt.at(-1);
  if (system.startsWith("You help")) return { text: "fact", usage: { inputTokens: 5, outputTokens: 1 } };
  const user = view.prompt.filter((m) => m.role === "user").at(-1)?.content;
  if (JSON.stringify(user).includes("research")) {
    if (last?.role === "tool") return { text: "done", usage: { inputTokens: 7, outputTokens: 3 } };
    return {
      toolCalls: [{ toolName: "helper", input: { task: "find" } }],
      usage: { inputTokens: 10, outputTokens: 2 },
    };
  }
  if (JSON.stringify(user).includes("spend"))
    return last?.role === "tool"
      ? { text: "spent", usage: { inputTokens: 2, outputTokens: 2 } }
      : {
          toolCalls: [{ toolName: "approve_spend", input: { amount: 3 } }],
          usage: { inputTokens: 3, outputTokens: 1 },
        };
  if (JSON.stringify(user).includes("gated"))
    return { toolCalls: [{ toolName: "echo", input: { text: "x" } }], usage: { inputTokens: 4, outputTokens: 0 } };
  return { text: "again", usage: { inputTokens: 1, outputTokens: 1 } };
}

describe("token usage totals: per run, per thread, per key, and on /metrics", () => {
  let rt: TestRuntime;
  let server: TaiServer;
  let base: string;
  let gql: ReturnType<typeof gqlClient>;
  const keys: Record<string, string> = {};
  beforeAll(async () => {
    rt = await testRuntime({ app: agentTestApp() });
    server = buildApp(rt);
    base = (await server.start(0, "127.0.0.1")).replace(/\/graphql$/, "");
    gql = gqlClient(rt);
    for (const [name, role] of [
      ["usage-admin", "ADMIN"],
      ["usage-alice", "USER"],
      ["usage-bob", "USER"],
    ] as const)
      keys[name] = await rt.keys.create(name, role);
    useScript(rt.agents, "u", script);
  });
  afterAll(async () => {
    await server?.stop();
    await rt?.dispose();
  });

  const subagents = [{ name: "helper", description: "Helps", systemPrompt: "You help." }];

  it("should total a run's tokens with its sub-agent's, a thread's over its runs, and a key's over the runs it started", async () => {
    const threadId = `usage-thread-${Date.now()}`;
    const first = await gql(
      RUN,
      { input: { threadId, userMessage: "research", llmProvider: "u", subagents } },
      keys["usage-alice"],
    );
    expect(first.errors).toBeUndefined();
    await gql(RUN, { input: { threadId, userMessage: "more", llmProvider: "u" } }, keys["usage-alice"]);
    const runId = first.data!.runAgent.runId as string;

    const read = await gql(
      `query ($id: ID!, $thread: ID!) { agentRun(id: $id) { usage ${USAGE} } thread(id: $thread) { usage ${USAGE} } keyUsage(keyName: "usage-alice") ${USAGE} }`,
      { id: runId, thread: threadId },
      keys["usage-alice"],
    );
    expect(read.errors).toBeUndefined();
    expect(read.data).toEqual({
      agentRun: { usage: { inputTokens: 22, outputTokens: 6, totalTokens: 28, runs: 1 } },
      thread: { usage: { inputTokens: 23, outputTokens: 7, totalTokens: 30, runs: 2 } },
      keyUsage: { inputTokens: 23, outputTokens: 7, totalTokens: 30, runs: 2 },
    });
  });

  it("should let an ADMIN read any key's usage and a caller only its own, refusing another key's with FORBIDDEN", async () => {
    await gql(RUN, { input: { userMessage: "more", llmProvider: "u" } }, keys["usage-bob"]);
    const bob = `{ keyUsage(keyName: "usage-bob") ${USAGE} }`;
    expect((await gql(bob, {}, keys["usage-bob"])).data).toEqual({
      keyUsage: { inputTokens: 1, outputTokens: 1, totalTokens: 2, runs: 1 },
    });
    expect((await gql(bob, {}, keys["usage-admin"])).data).toEqual({
      keyUsage: { inputTokens: 1, outputTokens: 1, totalTokens: 2, runs: 1 },
    });
    const refused = await gql(bob, {}, keys["usage-alice"]);
    expect(refused.errors?.map((e) => e.extensions?.code)).toEqual(["FORBIDDEN"]);
    expect(refused.text).not.toContain('totalTokens":');
    expect((await gql(`{ keyUsage(keyName: "usage-nobody") ${USAGE} }`, {}, keys["usage-admin"])).data).toEqual({
      keyUsage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, runs: 0 },
    });
  });

  it("should name the run's thread on its InterruptFinal, over GraphQL", async () => {
    const res = await gql(
      RUN,
      { input: { userMessage: "gated", llmProvider: "u", toolNames: ["echo"], interruptOn: { echo: true } } },
      keys["usage-bob"],
    );
    expect(res.errors).toBeUndefined();
    const { threadId, final } = res.data!.runAgent as {
      threadId: string;
      final: { __typename: string; threadId: string };
    };
    expect(final).toMatchObject({ __typename: "InterruptFinal", threadId });
    expect(threadId).toEqual(expect.any(String));
  });

  it("should add a continuation's tokens to the run it continues, once its park is answered", async () => {
    const { started, log } = await runToEnd(rt.agents, {
      userMessage: "spend",
      llmProvider: "u",
      toolNames: ["approve_spend"],
    });
    const suspended = log.at(-1) as { type: string; interactionIds: string[] };
    expect(suspended.type).toBe("suspended_final");
    expect((await rt.agents.store.get(started.runId))!.usage).toEqual({
      inputTokens: 3,
      outputTokens: 1,
      totalTokens: 4,
    });
    await rt.interactions.answer(suspended.interactionIds[0], { ok: true }, as("USER"));
    await until(
      "the continued run to end",
      async () => (await rt.agents.store.get(started.runId))?.status === "SUCCEEDED",
    );
    const read = await gql(
      `query ($id: ID!) { agentRun(id: $id) { usage ${USAGE} } }`,
      { id: started.runId },
      keys["usage-admin"],
    );
    expect(read.data).toEqual({ agentRun: { usage: { inputTokens: 5, outputTokens: 3, totalTokens: 8, runs: 1 } } });
  });

  it("should count every run's tokens in tai42_llm_tokens_total by model and direction on a real /metrics", async () => {
    const text = (await get(`${base}/metrics`))!.text;
    expect(text).toContain("# TYPE tai42_llm_tokens_total counter");
    // 22 + 1 (alice), 1 (bob), 4 (bob's gated run), 3 + 2 (the continued run); outputs 6 + 1, 1, 0, 1 + 2.
    expect(sample(text, "tai42_llm_tokens_total", { model: "u-model", direction: "input" })).toBe(33);
    expect(sample(text, "tai42_llm_tokens_total", { model: "u-model", direction: "output" })).toBe(11);
  });
});

describe("tai42_llm_tokens_total's model label", () => {
  it("should count models past the label bound as (other), and a RunUsage naming none as (unknown)", async () => {
    const m = new Metrics();
    for (let i = 0; i < MAX_MODEL_LABELS + 10; i++) m.llmTokens(`model-${i}`, 1, 1);
    m.llmTokens(null, 2, 0);
    const text = await m.text();
    expect(sample(text, "tai42_llm_tokens_total", { model: "model-0", direction: "input" })).toBe(1);
    expect(text).not.toContain(`model-${MAX_MODEL_LABELS + 5}`);
    expect(sample(text, "tai42_llm_tokens_total", { model: "(other)", direction: "output" })).toBe(10);
    expect(sample(text, "tai42_llm_tokens_total", { model: "(unknown)", direction: "input" })).toBe(2);
  });
});
