import { afterEach, describe, expect, it } from "vitest";
import type { Client } from "graphql-ws";
import type { ScriptedToolCall, ScriptView } from "../../src/agent/providers/scripted-model.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { collect, until, wsClient, type Collected } from "../graphql/support.ts";
import { agentTestApp } from "./fixtures.ts";
import { useScript } from "./support.ts";

const AGENT_STREAM = /* GraphQL */ `
  subscription S($input: AgentRunInput!, $afterSeq: Int, $runId: ID) {
    agentStream(input: $input, afterSeq: $afterSeq, runId: $runId) {
      __typename
      ... on StreamEventBase { type final seq runId agent }
      ... on MessageDelta { text }
      ... on MessageFinal { text }
      ... on ReasoningStep { text }
      ... on RunUsage { inputTokens outputTokens totalTokens model }
      ... on StructuredFinal { data }
      ... on ToolCallStep { tool args callId }
      ... on ToolResultStep { tool callId result isError }
      ... on InterruptFinal { interruptId payload reason }
      ... on SuspendedFinal { interactionIds threadId callerInteractionIds expiryAt }
      ... on AsksFinal { asks }
    }
  }
`;

/** One agentStream event as the tests read it. */
interface Ev {
  __typename: string;
  type: string;
  final: boolean;
  seq: number;
  runId: string;
  agent: string | null;
  [field: string]: unknown;
}

/** The model asks for `call` first; once it sees a tool result, it answers `answer`. */
const callThenAnswer =
  (call: ScriptedToolCall, answer = "All done.") =>
  (view: ScriptView) =>
    view.prompt.at(-1)?.role === "tool" ? { text: answer } : { toolCalls: [call] };

describe("agentStream over graphql-ws (real sockets)", () => {
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
  async function stream(variables: Record<string, unknown>, c = client()): Promise<{ events: Ev[]; sub: Collected<{ agentStream: Ev }> }> {
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

  async function http<T = Record<string, any>>(query: string, variables: Record<string, unknown>, key = userKey): Promise<{ data?: T; errors?: { message: string; extensions?: Record<string, any> }[] }> {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify({ query, variables }) });
    return (await res.json()) as never;
  }

  describe("terminal kinds", () => {
    it("should stream a message run: reasoning, the tool call and result, the deltas, usage, then MessageFinal", async () => {
      const r = await start();
      useScript(r.agents, "s", [{ reasoning: "Echo first.", toolCalls: [{ toolName: "echo", input: { text: "hi" } }] }, { text: "It said hi." }]);
      const { events, sub } = await stream({ input: { userMessage: "say hi", toolNames: ["echo"], llmProvider: "s" } });
      expectWellFormed(events, sub);
      expect(kinds(events)).toEqual(["reasoning_step", "tool_call_step", "tool_result_step", "message_delta", "message_delta", "message_delta", "run_usage", "message_final"]);
      expect(events[1]).toMatchObject({ __typename: "ToolCallStep", tool: "echo", args: { text: "hi" }, callId: "call_0_0", agent: null });
      expect(events[2]).toMatchObject({ __typename: "ToolResultStep", callId: "call_0_0", result: "hi", isError: false });
      expect(events.at(-1)).toMatchObject({ __typename: "MessageFinal", text: "It said hi.", final: true });
    });

    it("should stream a structured run ending with StructuredFinal", async () => {
      const r = await start();
      useScript(r.agents, "s", [{ text: '{"city":"Paris","population":2100000}' }]);
      const responseFormat = { type: "object", properties: { city: { type: "string" }, population: { type: "integer" } }, required: ["city", "population"] };
      const { events, sub } = await stream({ input: { userMessage: "largest city?", responseFormat, llmProvider: "s" } });
      expectWellFormed(events, sub);
      expect(kinds(events)).toEqual(["message_delta", "run_usage", "structured_final"]);
      expect(events.at(-1)).toMatchObject({ __typename: "StructuredFinal", data: { city: "Paris", population: 2100000 } });
    });

    describe("interrupt, then resume", () => {
      async function interrupted() {
        const r = await start();
        useScript(r.agents, "s", callThenAnswer({ toolName: "kv_put", input: { key: "colour", value: "blue" } }, "Stored."));
        const { events, sub } = await stream({ input: { userMessage: "remember colour is blue", toolNames: ["kv_put"], interruptOn: { kv_put: { allowedDecisions: ["approve", "edit", "reject"], description: "Writes need a reviewer" } }, llmProvider: "s" } });
        expectWellFormed(events, sub);
        expect(kinds(events)).toEqual(["run_usage", "interrupt_final"]);
        const interrupt = events.at(-1)!;
        expect(interrupt).toMatchObject({
          __typename: "InterruptFinal",
          reason: "approval required: kv_put",
          payload: { actions: [{ callId: "call_0_0", tool: "kv_put", args: { key: "colour", value: "blue" }, allowedDecisions: ["approve", "edit", "reject"], description: "Writes need a reviewer" }] },
        });
        expect(await r.db.kvEntry.count()).toBe(0);
        const run = await r.agents.store.get(interrupt.runId);
        return { r, threadId: run!.threadId!, interrupt };
      }

      it("should run the approved call on resume and continue the thread to a MessageFinal", async () => {
        const { r, threadId, interrupt } = await interrupted();
        const { events, sub } = await stream({ input: { threadId, resume: { decisions: [{ type: "approve" }] }, resumeCheckpointId: interrupt.runId } });
        expectWellFormed(events, sub);
        expect(kinds(events)).toEqual(["tool_call_step", "tool_result_step", "message_delta", "run_usage", "message_final"]);
        expect(events[0]).toMatchObject({ tool: "kv_put", callId: "call_0_0", args: { key: "colour", value: "blue" } });
        expect(events[1]).toMatchObject({ isError: false, result: { key: "colour" } });
        expect((await r.db.kvEntry.findUnique({ where: { key: "colour" } }))?.value).toBe("blue");
        expect(events[0].runId).not.toBe(interrupt.runId);
        expect((await r.agents.store.get(interrupt.runId))?.status).toBe("RESUMED");
      });

      it("should run an edited call with the reviewer's arguments", async () => {
        const { r, threadId } = await interrupted();
        const { events, sub } = await stream({ input: { threadId, resume: { type: "edit", args: { key: "colour", value: "green" } } } });
        expectWellFormed(events, sub);
        expect(kinds(events)).toEqual(["tool_call_step", "tool_result_step", "message_delta", "run_usage", "message_final"]);
        expect(events[0]).toMatchObject({ args: { key: "colour", value: "green" } });
        expect((await r.db.kvEntry.findUnique({ where: { key: "colour" } }))?.value).toBe("green");
      });

      it("should not run a rejected call and tell the model it was rejected", async () => {
        const { r, threadId } = await interrupted();
        const { events, sub } = await stream({ input: { threadId, resume: { decisions: [{ type: "reject", message: "not now" }] } } });
        expectWellFormed(events, sub);
        expect(kinds(events)).toEqual(["tool_call_step", "tool_result_step", "message_delta", "run_usage", "message_final"]);
        expect(events[1]).toMatchObject({ isError: true, result: { rejected: true, message: "not now" } });
        expect(await r.db.kvEntry.count()).toBe(0);
      });

      it("should refuse a second resume of the same interrupt, and a decision the gate does not allow", async () => {
        const { threadId } = await interrupted();
        const bad = await stream({ input: { threadId, resume: { decisions: [{ type: "approve" }, { type: "approve" }] } } });
        expect(bad.sub.errors).toMatchObject([{ extensions: { code: "BAD_USER_INPUT", issues: [{ path: "/resume/decisions", message: expect.stringContaining("must have 1 decision") }] } }]);
        await stream({ input: { threadId, resume: { decisions: [{ type: "approve" }] } } });
        const again = await stream({ input: { threadId, resume: { decisions: [{ type: "approve" }] } } });
        expect(again.sub.errors).toMatchObject([{ extensions: { code: "CONFLICT" }, message: expect.stringContaining("has nothing to resume") }]);
      });
    });

    describe("suspend, answer, resume", () => {
      async function suspended() {
        const r = await start();
        useScript(r.agents, "s", callThenAnswer({ toolName: "approve_spend", input: { amount: 5 } }, "The spend was approved."));
        const { events, sub } = await stream({ input: { userMessage: "spend 5", toolNames: ["approve_spend"], llmProvider: "s" } });
        expectWellFormed(events, sub);
        expect(kinds(events)).toEqual(["tool_call_step", "run_usage", "suspended_final"]);
        const final = events.at(-1)!;
        const interactions = await r.interactions.list("PENDING", as("ADMIN"));
        expect(final).toMatchObject({ __typename: "SuspendedFinal", interactionIds: [interactions[0].id], callerInteractionIds: [], threadId: expect.any(String) });
        expect(Date.parse(final.expiryAt as string)).toBe(Date.parse(interactions[0].expiresAt!));
        return { r, final, interactionId: interactions[0].id };
      }

      it("should resume out of band once the interaction is answered: joining with runId and afterSeq streams the continuation", async () => {
        const { final, interactionId } = await suspended();
        const early = await stream({ input: { threadId: final.threadId, resume: {} } });
        expect(early.sub.errors).toMatchObject([{ extensions: { code: "CONFLICT" }, message: expect.stringContaining(interactionId) }]);
        // Subscribed before the answer: the stream waits, then continues with the resumed events.
        const joined = collect<{ agentStream: Ev }>(client(), AGENT_STREAM, { input: {}, runId: final.runId, afterSeq: final.seq });
        const answered = await http(`mutation($id: ID!, $a: JSON!) { answerInteraction(id: $id, answer: $a) { status data } }`, { id: interactionId, a: { ok: true } });
        expect(answered.data?.answerInteraction).toEqual({ status: "SUCCEEDED", data: { ok: true } });
        await joined.waitForEnd(15_000);
        const events = joined.data.map((d) => d.agentStream);
        expect(joined.errors).toEqual([]);
        expect(kinds(events)).toEqual(["tool_call_step", "tool_result_step", "message_delta", "message_delta", "message_delta", "message_delta", "run_usage", "message_final"]);
        expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => final.seq + 1 + i));
        expect(events.every((e) => e.runId === final.runId)).toBe(true);
        expect(events[1]).toMatchObject({ tool: "approve_spend", isError: false, result: { ok: true } });
        expect(events.at(-1)).toMatchObject({ text: "The spend was approved." });
      });

      it("should accept the answers inside the resume itself", async () => {
        const { final, interactionId } = await suspended();
        const { events, sub } = await stream({ input: { threadId: final.threadId, resume: { answers: { [interactionId]: { ok: false } } } } });
        expectWellFormed(events, sub);
        expect(events[1]).toMatchObject({ result: { ok: false } });
      });

      it("should split out the interactions addressed to the caller", async () => {
        const r = await start();
        useScript(r.agents, "s", (v) => (v.prompt.at(-1)?.role === "tool" ? { text: "ok" } : { toolCalls: [{ toolName: "approve_spend", input: { amount: 1 } }, { toolName: "confirm_with_caller", input: { what: "the plan" } }] }));
        const { events } = await stream({ input: { userMessage: "go", toolNames: ["approve_spend", "confirm_with_caller"], llmProvider: "s" } });
        const final = events.at(-1)!;
        const pending = await r.interactions.list("PENDING", as("ADMIN"));
        const toCaller = pending.filter((i) => i.to === "caller").map((i) => i.id);
        expect(final.type).toBe("suspended_final");
        expect((final.interactionIds as string[]).sort()).toEqual(pending.map((i) => i.id).sort());
        expect(final.callerInteractionIds).toEqual(toCaller);
        expect(toCaller).toHaveLength(1);
      });
    });

    it("should end with AsksFinal when the model asks its caller, and continue with the answer", async () => {
      const r = await start();
      useScript(r.agents, "s", callThenAnswer({ toolName: "ask_caller", input: { question: "Which city?", answerFormat: { type: "string" } } }, "Booking Paris."));
      const first = await stream({ input: { userMessage: "book a trip", llmProvider: "s" } });
      expectWellFormed(first.events, first.sub);
      expect(kinds(first.events)).toEqual(["tool_call_step", "run_usage", "asks_final"]);
      const [ask] = first.events.at(-1)!.asks as { id: string; question: string; to: string; callId: string }[];
      expect(ask).toMatchObject({ question: "Which city?", to: "caller", callId: "call_0_0", answerFormat: { type: "string" } });
      const run = await r.agents.store.get(first.events[0].runId);
      const wrong = await stream({ input: { threadId: run!.threadId, resume: { answers: { [ask.id]: 42 } } } });
      expect(wrong.sub.errors).toMatchObject([{ extensions: { code: "BAD_USER_INPUT", issues: [{ path: `/resume/answers/${ask.id}`, message: "must be string" }] } }]);
      const { events, sub } = await stream({ input: { threadId: run!.threadId, resume: { answers: { [ask.id]: "Paris" } } } });
      expectWellFormed(events, sub);
      expect(kinds(events)).toEqual(["tool_call_step", "tool_result_step", "message_delta", "message_delta", "run_usage", "message_final"]);
      expect(events[1]).toMatchObject({ tool: "ask_caller", result: "Paris", isError: false });
    });
  });

  describe("replay", () => {
    it("should give a client that disconnects mid-run and rejoins with afterSeq every event exactly once, in order", async () => {
      const r = await start();
      const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ");
      // The answer's deltas leave in one burst when its turn ends (docs/agent-stream.md §2.2): three tool turns come first, live.
      const echo = (text: string) => ({ toolCalls: [{ toolName: "echo", input: { text } }] });
      useScript(r.agents, "slow", [echo("x"), echo("y"), echo("z"), { text: words }], 20);
      const first = client();
      const early = collect<{ agentStream: Ev }>(first, AGENT_STREAM, { input: { userMessage: "talk", toolNames: ["echo"], llmProvider: "slow" } });
      await early.waitForData(6);
      await first.dispose();
      const seen = early.data.map((d) => d.agentStream);
      const runId = seen[0].runId;
      const lastSeq = seen.at(-1)!.seq;
      expect((await r.agents.store.get(runId))?.status).toBe("RUNNING");

      const { events, sub } = await stream({ input: {}, runId, afterSeq: lastSeq });
      expect(sub.errors).toEqual([]);
      const all = [...seen, ...events];
      expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
      expect(all.filter((e) => e.final)).toHaveLength(1);
      const stored = await r.agents.store.events(runId, 0);
      expect(all.map((e) => [e.seq, e.type])).toEqual(stored.map((e) => [e.seq, e.type]));
      expect(events.at(-1)).toMatchObject({ type: "message_final", text: words });
    });

    it("should replay a finished run from afterSeq, then complete", async () => {
      const r = await start();
      useScript(r.agents, "s", [{ text: "one two three" }]);
      const { events } = await stream({ input: { userMessage: "count", llmProvider: "s" } });
      const { events: replayed, sub } = await stream({ input: {}, runId: events[0].runId, afterSeq: 2 });
      expect(sub.completed).toBe(true);
      expect(replayed).toEqual(events.slice(2));
      void r;
    });

    it("should answer NOT_FOUND to another caller joining a run, as if it did not exist", async () => {
      const r = await start();
      useScript(r.agents, "s", [{ text: "mine" }]);
      const { events } = await stream({ input: { userMessage: "x", llmProvider: "s" } });
      const otherKey = await r.keys.create("other-user", "USER");
      const { sub } = await stream({ input: {}, runId: events[0].runId }, client(otherKey));
      expect(sub.errors).toMatchObject([{ extensions: { code: "NOT_FOUND" } }]);
    });
  });

  describe("failures and rejections", () => {
    it("should end a failed run with AGENT_RUN_FAILED carrying the kind and where to resume, live and on replay", async () => {
      const r = await start();
      useScript(r.agents, "s", () => ({ toolCalls: [{ toolName: "echo", input: { text: "again" } }] }));
      const { events, sub } = await stream({ input: { userMessage: "loop", toolNames: ["echo"], recursionLimit: 1, llmProvider: "s" } });
      expect(kinds(events)).toEqual(["tool_call_step", "tool_result_step", "run_usage"]);
      expect(sub.errors).toMatchObject([{ message: expect.stringContaining("recursion limit of 1"), extensions: { code: "AGENT_RUN_FAILED", kind: "TIMEOUT", runId: events[0].runId, afterSeq: 3 } }]);
      const replay = await stream({ input: {}, runId: events[0].runId, afterSeq: 1 });
      expect(kinds(replay.events)).toEqual(["tool_result_step", "run_usage"]);
      expect(replay.sub.errors).toMatchObject([{ extensions: { code: "AGENT_RUN_FAILED", kind: "TIMEOUT" } }]);
      void r;
    });

    it("should reject an invalid start with BAD_USER_INPUT and every issue, creating no run", async () => {
      const r = await start();
      const { sub } = await stream({ input: { agent: "nobody", userMessage: "x" } });
      expect(sub.errors).toMatchObject([{ extensions: { code: "BAD_USER_INPUT", issues: [{ path: "/agent" }] } }]);
      const bad = await stream({ input: { userMessage: "x", toolNames: ["ghost"], llmProvider: "nope", llmKwargs: { temperature: 9 } } });
      expect(bad.sub.errors).toMatchObject([{ extensions: { code: "BAD_USER_INPUT", issues: [{ path: "/llmProvider" }, { path: "/llmKwargs/temperature" }] } }]);
      expect(await r.db.agentRun.count()).toBe(0);
    });
  });

  describe("the rest of the agent API", () => {
    it("should drain a run with runAgent and return its terminal event", async () => {
      const r = await start();
      useScript(r.agents, "s", [{ toolCalls: [{ toolName: "calculate", input: { op: "add", a: 2, b: 2 } }] }, { text: "Four." }]);
      const res = await http(`mutation($i: AgentRunInput!) { runAgent(input: $i) { runId threadId final { __typename ... on StreamEventBase { seq final } ... on MessageFinal { text } } } }`, {
        i: { userMessage: "2+2", toolNames: ["calculate"], llmProvider: "s" },
      });
      expect(res.errors).toBeUndefined();
      expect(res.data!.runAgent).toMatchObject({ runId: expect.any(String), threadId: expect.any(String), final: { __typename: "MessageFinal", text: "Four.", final: true, seq: 5 } });
      const thread = await http(`query($id: ID!) { thread(id: $id) { id messages { role content } } }`, { id: res.data!.runAgent.threadId });
      expect(thread.data!.thread.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
      const run = await http(`query($id: ID!) { agentRun(id: $id) { status lastSeq final { __typename } } }`, { id: res.data!.runAgent.runId });
      expect(run.data!.agentRun).toEqual({ status: "SUCCEEDED", lastSeq: 5, final: { __typename: "MessageFinal" } });
      void r;
    });

    it("should raise AGENT_RUN_FAILED from runAgent for a failed run", async () => {
      const r = await start();
      useScript(r.agents, "s", [{ error: "quota exceeded" }]);
      const res = await http(`mutation($i: AgentRunInput!) { runAgent(input: $i) { runId } }`, { i: { userMessage: "x", llmProvider: "s" } });
      expect(res.errors).toMatchObject([{ extensions: { code: "AGENT_RUN_FAILED", kind: "UNAVAILABLE" }, message: expect.stringContaining("quota exceeded") }]);
      void r;
    });

    it("should list agents, record thread messages, and store skills for admins only", async () => {
      const r = await start();
      const agents = await http(`{ agents { name specRunnable presetBakeableFields inputSchema } }`, {});
      expect(agents.data!.agents).toEqual([expect.objectContaining({ name: "tools_agent", specRunnable: true })]);
      const appended = await http(`mutation { appendThreadMessages(threadId: "t-9", messages: [{ role: "user", content: "hello" }]) { id messages { role content } } }`, {});
      expect(appended.data!.appendThreadMessages).toEqual({ id: "t-9", messages: [{ role: "user", content: "hello" }] });
      const refused = await http(`mutation { putSkill(input: { name: "tone", description: "d", instructions: "i" }) { name } }`, {});
      expect(refused.errors).toMatchObject([{ extensions: { code: "FORBIDDEN" } }]);
      const admin = await r.keys.create("agent-admin", "ADMIN");
      const put = await http(`mutation { putSkill(input: { name: "tone", description: "d", instructions: "i" }) { name } }`, {}, admin);
      expect(put.data!.putSkill).toEqual({ name: "tone" });
      expect((await http(`{ skills { name instructions } }`, {})).data!.skills).toEqual([{ name: "tone", instructions: "i" }]);
    });
  });

  it("should stream an agent run over SSE too", async () => {
    const r = await start();
    useScript(r.agents, "s", [{ text: "over sse" }]);
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", authorization: `Bearer ${userKey}` },
      body: JSON.stringify({ query: AGENT_STREAM, variables: { input: { userMessage: "hi", llmProvider: "s" } } }),
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const text = await res.text();
    const nexts = text
      .split("\n\n")
      .filter((b) => b.startsWith("event: next"))
      .map((b) => JSON.parse(b.slice(b.indexOf("data:") + 5)).data.agentStream as Ev);
    expect(kinds(nexts)).toEqual(["message_delta", "message_delta", "run_usage", "message_final"]);
    expect(text).toContain("event: complete");
    await until("the run to be stored as finished", async () => (await r.agents.store.get(nexts[0].runId))?.status === "SUCCEEDED");
  });
});
