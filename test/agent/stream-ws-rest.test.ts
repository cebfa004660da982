import { describe, expect, it } from "vitest";
import { until } from "../graphql/support.ts";
import { useScript } from "./support.ts";
import { agentStreamServer, AGENT_STREAM, type Ev } from "./stream-ws-support.ts";

describe("agentStream over graphql-ws and SSE: failures, rejections and the rest of the agent API", () => {
  const { start, stream, kinds, http, url, userKey } = agentStreamServer();

  describe("failures and rejections", () => {
    it("should end a failed run with AGENT_RUN_FAILED carrying the kind and where to resume, live and on replay", async () => {
      const r = await start();
      useScript(r.agents, "s", () => ({ toolCalls: [{ toolName: "echo", input: { text: "again" } }] }));
      const { events, sub } = await stream({
        input: { userMessage: "loop", toolNames: ["echo"], recursionLimit: 1, llmProvider: "s" },
      });
      expect(kinds(events)).toEqual(["tool_call_step", "tool_result_step", "run_usage"]);
      expect(sub.errors).toMatchObject([
        {
          message: expect.stringContaining("recursion limit of 1"),
          extensions: { code: "AGENT_RUN_FAILED", kind: "TIMEOUT", runId: events[0].runId, afterSeq: 3 },
        },
      ]);
      const replay = await stream({ input: {}, runId: events[0].runId, afterSeq: 1 });
      expect(kinds(replay.events)).toEqual(["tool_result_step", "run_usage"]);
      expect(replay.sub.errors).toMatchObject([{ extensions: { code: "AGENT_RUN_FAILED", kind: "TIMEOUT" } }]);
      void r;
    });

    it("should reject an invalid start with BAD_USER_INPUT and every issue, creating no run", async () => {
      const r = await start();
      const { sub } = await stream({ input: { agent: "nobody", userMessage: "x" } });
      expect(sub.errors).toMatchObject([{ extensions: { code: "BAD_USER_INPUT", issues: [{ path: "/agent" }] } }]);
      const bad = await stream({
        input: { userMessage: "x", toolNames: ["ghost"], llmProvider: "nope", llmKwargs: { temperature: 9 } },
      });
      expect(bad.sub.errors).toMatchObject([
        {
          extensions: {
            code: "BAD_USER_INPUT",
            issues: [{ path: "/llmProvider" }, { path: "/llmKwargs/temperature" }],
          },
        },
      ]);
      expect(await r.db.agentRun.count()).toBe(0);
    });
  });

  describe("the rest of the agent API", () => {
    it("should drain a run with runAgent and return its terminal event", async () => {
      const r = await start();
      useScript(r.agents, "s", [
        { toolCalls: [{ toolName: "calculate", input: { op: "add", a: 2, b: 2 } }] },
        { text: "Four." },
      ]);
      const res = await http(
        `mutation($i: AgentRunInput!) { runAgent(input: $i) { runId threadId final { __typename ... on StreamEventBase { seq final } ... on MessageFinal { text } } } }`,
        {
          i: { userMessage: "2+2", toolNames: ["calculate"], llmProvider: "s" },
        },
      );
      expect(res.errors).toBeUndefined();
      expect(res.data!.runAgent).toMatchObject({
        runId: expect.any(String),
        threadId: expect.any(String),
        final: { __typename: "MessageFinal", text: "Four.", final: true, seq: 5 },
      });
      const thread = await http(`query($id: ID!) { thread(id: $id) { id messages { role content } } }`, {
        id: res.data!.runAgent.threadId,
      });
      expect(thread.data!.thread.messages.map((m: { role: string }) => m.role)).toEqual([
        "user",
        "assistant",
        "tool",
        "assistant",
      ]);
      const run = await http(`query($id: ID!) { agentRun(id: $id) { status lastSeq final { __typename } } }`, {
        id: res.data!.runAgent.runId,
      });
      expect(run.data!.agentRun).toEqual({ status: "SUCCEEDED", lastSeq: 5, final: { __typename: "MessageFinal" } });
      void r;
    });

    it("should raise AGENT_RUN_FAILED from runAgent for a failed run", async () => {
      const r = await start();
      useScript(r.agents, "s", [{ error: "quota exceeded" }]);
      const res = await http(`mutation($i: AgentRunInput!) { runAgent(input: $i) { runId } }`, {
        i: { userMessage: "x", llmProvider: "s" },
      });
      expect(res.errors).toMatchObject([
        {
          extensions: { code: "AGENT_RUN_FAILED", kind: "UNAVAILABLE" },
          message: expect.stringContaining("quota exceeded"),
        },
      ]);
      void r;
    });

    it("should list agents, record thread messages, and store skills for admins only", async () => {
      const r = await start();
      const agents = await http(`{ agents { name specRunnable presetBakeableFields inputSchema } }`, {});
      expect(agents.data!.agents).toEqual([expect.objectContaining({ name: "tools_agent", specRunnable: true })]);
      const appended = await http(
        `mutation { appendThreadMessages(threadId: "t-9", messages: [{ role: "user", content: "hello" }]) { id messages { role content } } }`,
        {},
      );
      expect(appended.data!.appendThreadMessages).toEqual({
        id: "t-9",
        messages: [{ role: "user", content: "hello" }],
      });
      const refused = await http(
        `mutation { putSkill(input: { name: "tone", description: "d", instructions: "i" }) { name } }`,
        {},
      );
      expect(refused.errors).toMatchObject([{ extensions: { code: "FORBIDDEN" } }]);
      const admin = await r.keys.create("agent-admin", "ADMIN");
      const put = await http(
        `mutation { putSkill(input: { name: "tone", description: "d", instructions: "i" }) { name } }`,
        {},
        admin,
      );
      expect(put.data!.putSkill).toEqual({ name: "tone" });
      expect((await http(`{ skills { name instructions } }`, {})).data!.skills).toEqual([
        { name: "tone", instructions: "i" },
      ]);
    });
  });

  it("should stream an agent run over SSE too", async () => {
    const r = await start();
    useScript(r.agents, "s", [{ text: "over sse" }]);
    const res = await fetch(url(), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        authorization: `Bearer ${userKey()}`,
      },
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
    await until(
      "the run to be stored as finished",
      async () => (await r.agents.store.get(nexts[0].runId))?.status === "SUCCEEDED",
    );
  });
});
