import { afterEach, describe, expect, it } from "vitest";
import type { Client } from "graphql-ws";
import type { AgentService } from "../../src/agent/agent-service.ts";
import type { AgentLogEntry } from "../../src/agent/events.ts";
import type { ScriptView } from "../../src/agent/providers/scripted-model.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { collect, gql, until, wsClient } from "../graphql/support.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { agentTestApp } from "./fixtures.ts";
import { ofType, runToEnd, sharedRuntimes, types, useScript } from "./support.ts";

/** The model asks its caller first; once it reads the answer, it answers with it. */
const askThenAnswer = (input: Record<string, unknown>) => (view: ScriptView) => {
  const last = view.prompt.at(-1);
  if (last?.role !== "tool") return { toolCalls: [{ toolName: "ask_caller", input }] };
  const part = (last.content as { output: { type: string; value: unknown } }[])[0].output;
  return { text: `Answer: ${part.type === "text" ? part.value : JSON.stringify(part.value)}.` };
};

const ASK = { question: "Which city?", answerFormat: { type: "string" }, expiresInSeconds: 600 };

const RUN_AGENT = /* GraphQL */ `
  mutation R($input: AgentRunInput!) {
    runAgent(input: $input) {
      runId
      threadId
      final {
        __typename
        ... on StreamEventBase {
          type
          seq
        }
        ... on AsksFinal {
          asks
        }
      }
    }
  }
`;
const INTERACTIONS = /* GraphQL */ `
  query {
    interactions(status: PENDING) {
      id
      question
      to
      tool
      status
      answerFormat
      expiresAt
      runId
    }
  }
`;
const ANSWER = /* GraphQL */ `
  mutation A($id: ID!, $answer: JSON!) {
    answerInteraction(id: $id, answer: $answer) {
      id
      tool
      status
    }
  }
`;

interface AskEntry {
  id: string;
  callId: string;
  question: string;
  answerFormat: unknown;
  to: string;
  expiryAt: string | null;
  status: string;
}

/** A run's log after `afterSeq` up to its next terminal: what a joiner of `agentStream(runId, afterSeq)` receives. */
async function follow(agents: AgentService, runId: string, afterSeq: number): Promise<AgentLogEntry[]> {
  const log: AgentLogEntry[] = [];
  for await (const e of agents.events(runId, afterSeq, new AbortController().signal)) log.push(e);
  return log;
}

describe("AsksFinal: asks carries the full parked entries the caller must answer (id, question, answer format, and the rest of the parked-entry shape)", () => {
  let rt: TestRuntime | undefined;
  let server: TaiServer | undefined;
  const clients: Client[] = [];
  const keys: Record<string, string> = {};

  afterEach(async () => {
    for (const c of clients.splice(0)) await c.dispose();
    await server?.stop();
    await rt?.dispose();
    rt = server = undefined;
  });

  async function start(): Promise<{ r: TestRuntime; url: string }> {
    rt = await testRuntime({ app: agentTestApp() });
    server = buildApp(rt);
    const url = await server.start(0, "127.0.0.1");
    keys.owner = await rt.keys.create("asks-owner", "USER");
    keys.other = await rt.keys.create("asks-other", "USER");
    keys.admin = await rt.keys.create("asks-admin", "ADMIN");
    keys.reader = await rt.keys.create("asks-reader", "READER");
    return { r: rt, url };
  }

  const call = <T = Record<string, any>>(query: string, variables: Record<string, unknown>, key: string) =>
    gql<T>(server!, query, { variables, headers: { authorization: `Bearer ${keys[key]}` } });

  /** Runs the agent over GraphQL as `key` until it asks; returns the run and its one ask. */
  async function asked(r: TestRuntime, key = "owner", input: Record<string, unknown> = ASK) {
    useScript(r.agents, "s", askThenAnswer(input));
    const res = await call<{
      runAgent: { runId: string; threadId: string; final: { __typename: string; seq: number; asks: AskEntry[] } };
    }>(RUN_AGENT, { input: { userMessage: "book a trip", llmProvider: "s" } }, key);
    expect(res.body.errors).toBeUndefined();
    const { runId, threadId, final } = res.body.data!.runAgent;
    expect(final.__typename).toBe("AsksFinal");
    expect(final.asks).toHaveLength(1);
    return { runId, threadId, seq: final.seq, ask: final.asks[0] };
  }

  it("should carry each ask as its full parked entry, stored as a PENDING interaction to the caller that `interactions` and `interactionsChanged` serve", async () => {
    const { r, url } = await start();
    const c = wsClient(url, { connectionParams: { authorization: `Bearer ${keys.owner}` } });
    clients.push(c);
    const before = r.bus.listenerCount("interaction");
    const changes = collect<{ interactionsChanged: { id: string; status: string; to: string; tool: string } }>(
      c,
      `subscription { interactionsChanged { id status to tool } }`,
    );
    await until(
      "the subscription to listen",
      () => r.bus.listenerCount("interaction") > before || changes.errors.length > 0,
    );
    const { runId, ask } = await asked(r);

    expect(ask).toEqual({
      id: expect.any(String),
      callId: "call_0_0",
      question: "Which city?",
      answerFormat: { type: "string" },
      to: "caller",
      expiryAt: expect.any(String),
      status: "PENDING",
    });
    expect(new Date(ask.expiryAt!).getTime()).toBeGreaterThan(Date.now() + 500_000);

    const listed = await call<{ interactions: Record<string, unknown>[] }>(INTERACTIONS, {}, "owner");
    expect(listed.body.data!.interactions).toEqual([
      {
        id: ask.id,
        question: "Which city?",
        to: "caller",
        tool: "ask_caller",
        status: "PENDING",
        answerFormat: { type: "string" },
        expiresAt: ask.expiryAt,
        runId: expect.any(String),
      },
    ]);
    const toolRun = await r.runs.get(listed.body.data!.interactions[0].runId as string);
    expect(toolRun).toMatchObject({ tool: "ask_caller", status: "PARKED", door: "agent", parentRunId: runId });

    await until("interactionsChanged served the ask", () =>
      changes.data.some((d) => d.interactionsChanged.id === ask.id),
    );
    expect(changes.data.find((d) => d.interactionsChanged.id === ask.id)!.interactionsChanged).toEqual({
      id: ask.id,
      status: "PENDING",
      to: "caller",
      tool: "ask_caller",
    });

    // ask_caller is kept off the API: only the agent door reaches it.
    const tools = await call<{ tools: { name: string }[] }>(`query { tools { name } }`, {}, "admin");
    expect(tools.body.data!.tools.map((t) => t.name)).not.toContain("ask_caller");
    const direct = await call<{ dispatch: { status: string; errorKind: string } }>(
      `mutation { dispatch(input: { tool: "ask_caller", input: { question: "hi" } }) { status errorKind } }`,
      {},
      "admin",
    );
    expect(direct.body.data!.dispatch).toEqual({ status: "FAILED", errorKind: "NOT_FOUND" });
  });

  it("should continue the asked run by itself once answerInteraction answers its ask, its stream going on to MessageFinal under the same runId", async () => {
    const { r } = await start();
    const { runId, seq, ask } = await asked(r);
    const joined = follow(r.agents, runId, seq);

    const wrong = await call(ANSWER, { id: ask.id, answer: 42 }, "owner");
    expect(wrong.body.errors).toMatchObject([
      { extensions: { code: "BAD_USER_INPUT", issues: [{ path: "/answer", message: "must be string" }] } },
    ]);
    expect((await r.interactions.get(ask.id))?.status).toBe("PENDING");

    const res = await call<{ answerInteraction: { tool: string; status: string } }>(
      ANSWER,
      { id: ask.id, answer: "Paris" },
      "owner",
    );
    expect(res.body.data!.answerInteraction).toMatchObject({ tool: "ask_caller", status: "SUCCEEDED" });
    const log = await joined;
    expect(types(log)).toEqual([
      "tool_call_step",
      "tool_result_step",
      "message_delta",
      "message_delta",
      "run_usage",
      "message_final",
    ]);
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => seq + 1 + i));
    expect(log.every((e) => e.runId === runId)).toBe(true);
    expect(ofType(log, "tool_result_step")[0]).toMatchObject({
      tool: "ask_caller",
      callId: "call_0_0",
      result: "Paris",
      isError: false,
    });
    expect(ofType(log, "message_final")[0].text).toBe("Answer: Paris.");
    expect(await r.agents.store.get(runId)).toMatchObject({ status: "SUCCEEDED" });
    // Exactly once: a sweep after the fact finds nothing left to continue.
    expect(await r.agents.continueAnswered()).toEqual([]);
  });

  it("should carry the ask's expiry: an ask left unanswered past it expires, and the run continues by itself with a TIMEOUT result", async () => {
    const { r } = await start();
    const { runId, seq, ask } = await asked(r, "owner", { question: "Quick, which city?", expiresInSeconds: 0.2 });
    expect(ask).toMatchObject({ status: "PENDING", answerFormat: null, expiryAt: expect.any(String) });
    const log = await follow(r.agents, runId, seq);
    expect(ofType(log, "tool_result_step")).toEqual([
      expect.objectContaining({
        tool: "ask_caller",
        isError: true,
        result: expect.objectContaining({ kind: "TIMEOUT" }),
      }),
    ]);
    expect(types(log).at(-1)).toBe("message_final");
    expect((await r.interactions.get(ask.id))?.status).toBe("EXPIRED");
  });

  it("should let only the run's caller or an ADMIN see and answer its asks: another USER neither lists nor answers them", async () => {
    const { r } = await start();
    const { runId, seq, ask } = await asked(r);

    const seen = await call<{ interactions: { id: string }[] }>(INTERACTIONS, {}, "other");
    expect(seen.body.data!.interactions).toEqual([]);
    const refused = await call(ANSWER, { id: ask.id, answer: "Rome" }, "other");
    expect(refused.body.errors).toMatchObject([{ extensions: { code: "NOT_FOUND" } }]);
    expect(refused.body.errors![0].message).toBe(`no interaction with id "${ask.id}"`);
    expect((await r.interactions.get(ask.id))?.status).toBe("PENDING");
    expect((await r.agents.store.get(runId))?.status).toBe("ASKED");

    const admin = await call<{ interactions: { id: string }[] }>(INTERACTIONS, {}, "admin");
    expect(admin.body.data!.interactions.map((i) => i.id)).toEqual([ask.id]);
    const joined = follow(r.agents, runId, seq);
    await call(ANSWER, { id: ask.id, answer: "Oslo" }, "admin");
    expect(ofType(await joined, "message_final")[0].text).toBe("Answer: Oslo.");
  });

  it("should let a READER answer the asks of its own run: they are addressed to it, their caller", async () => {
    const { r } = await start();
    const { runId, seq, ask } = await asked(r, "reader");
    const joined = follow(r.agents, runId, seq);
    const res = await call<{ answerInteraction: { status: string } }>(ANSWER, { id: ask.id, answer: "Lima" }, "reader");
    expect(res.body.errors).toBeUndefined();
    expect(ofType(await joined, "message_final")[0].text).toBe("Answer: Lima.");
  });

  it("should still resume explicitly with the answers: the new run gets them and the asked run does not also continue", async () => {
    const { r } = await start();
    useScript(r.agents, "s", askThenAnswer(ASK));
    const { started, log: first } = await runToEnd(r.agents, { userMessage: "book a trip", llmProvider: "s" });
    const [ask] = ofType(first, "asks_final")[0].asks as unknown as AskEntry[];
    expect(ask).toMatchObject({ question: "Which city?", status: "PENDING", to: "caller" });

    await expect(
      r.agents.start({ options: { threadId: started.threadId, resume: { answers: {} } }, caller: as("USER") }),
    ).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: `/resume/answers/${ask.id}`, message: 'is missing: answer "Which city?"' }],
    });
    expect((await r.interactions.get(ask.id))?.status).toBe("PENDING");

    const resumed = await runToEnd(r.agents, {
      threadId: started.threadId,
      resume: { answers: { [ask.id]: "Paris" } },
    });
    expect(resumed.started.runId).not.toBe(started.runId);
    expect(ofType(resumed.log, "tool_result_step")[0]).toMatchObject({
      tool: "ask_caller",
      result: "Paris",
      isError: false,
    });
    expect(ofType(resumed.log, "message_final")[0].text).toBe("Answer: Paris.");
    expect(await r.agents.continueAnswered()).toEqual([]);
    expect((await r.agents.store.get(started.runId))?.status).toBe("RESUMED");
    expect((await r.agents.store.events(started.runId, 0)).at(-1)).toMatchObject({ type: "asks_final" });
    expect((await r.interactions.get(ask.id))?.status).toBe("ANSWERED");
  });
});

describe("AsksFinal: an ask is answered from any instance, like any park", () => {
  const { first, another, disposeAll } = sharedRuntimes();
  afterEach(disposeAll);

  it("should continue an asked run when its ask is answered on another instance sharing the database", async () => {
    const a = await first();
    const b = await another(a);
    for (const r of [a, b]) useScript(r.agents, "s", askThenAnswer(ASK));
    const { started, log: asked } = await runToEnd(a.agents, { userMessage: "book a trip", llmProvider: "s" });
    const [ask] = ofType(asked, "asks_final")[0].asks as unknown as AskEntry[];
    const joined = follow(b.agents, started.runId, asked.at(-1)!.seq);
    await b.interactions.answer(ask.id, "Bergen", as("USER"));
    const log = await joined;
    expect(ofType(log, "tool_result_step")[0]).toMatchObject({ tool: "ask_caller", result: "Bergen", isError: false });
    expect(ofType(log, "message_final")[0].text).toBe("Answer: Bergen.");
    await until("the asked run ended", async () => (await a.agents.store.get(started.runId))?.status === "SUCCEEDED");
  });
});
