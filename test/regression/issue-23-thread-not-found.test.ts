import { describe, expect, it } from "vitest";
import { useScript } from "../agent/support.ts";
import { agentStreamServer, callThenAnswer } from "../agent/stream-ws-support.ts";

const RUN = `mutation($i: AgentRunInput!) { runAgent(input: $i) { runId threadId final { __typename } } }`;
const THREAD = `query($id: ID!) { thread(id: $id) { id messages { content } } }`;
const APPEND = `mutation($t: String!) { appendThreadMessages(threadId: $t, messages: [{ role: "user", content: "bob was here" }]) { id } }`;

describe("issue 23: another caller's thread is NOT_FOUND, like an absent one, on every door that takes a thread id", () => {
  const { start, stream, http, client } = agentStreamServer();

  it("should answer another caller's thread as an absent one, naming neither the thread nor its run", async () => {
    const r = await start();
    const bob = await r.keys.create("bob", "USER");
    useScript(r.agents, "s", callThenAnswer({ toolName: "approve_spend", input: { amount: 5 } }));
    const started = await http(RUN, { i: { userMessage: "spend 5", toolNames: ["approve_spend"], llmProvider: "s" } });
    const { runId, threadId, final } = started.data!.runAgent;
    expect(final.__typename).toBe("SuspendedFinal");
    const named = (e: { message: string }) => e.message.includes(threadId) || e.message.includes(runId);

    // Reading: null, as for an absent thread; no error.
    expect(await http(THREAD, { id: threadId }, bob)).toEqual({ data: { thread: null } });
    expect(await http(THREAD, { id: "no-such-thread" }, bob)).toEqual({ data: { thread: null } });

    // Resuming: the very refusal an absent thread gets, over HTTP and over graphql-ws.
    const resumeAbsent = await http(RUN, { i: { threadId: "no-such-thread", resume: true } }, bob);
    const resumeOthers = await http(RUN, { i: { threadId, resume: true } }, bob);
    expect(resumeAbsent.errors).toMatchObject([{ extensions: { code: "NOT_FOUND" } }]);
    expect(resumeOthers).toEqual(resumeAbsent);
    const wsAbsent = await stream({ input: { threadId: "no-such-thread", resume: true } }, client(bob));
    const wsOthers = await stream({ input: { threadId, resume: true } }, client(bob));
    expect(wsAbsent.sub.errors).toMatchObject([{ extensions: { code: "NOT_FOUND" } }]);
    expect(wsOthers.sub.errors).toEqual(wsAbsent.sub.errors);

    // Starting on it, or appending to it: NOT_FOUND too.
    const run = await http(RUN, { i: { threadId, userMessage: "mine now", llmProvider: "s" } }, bob);
    const append = await http(APPEND, { t: threadId }, bob);
    for (const refused of [resumeOthers, run, append]) {
      expect(refused.errors).toMatchObject([{ extensions: { code: "NOT_FOUND" } }]);
      expect(refused.errors!.filter(named)).toEqual([]);
    }

    // Dispatching the agent as a tool (GraphQL dispatch; MCP tools/call takes the same chokepoint): a NOT_FOUND run.
    const asTool = await http(
      `mutation($i: JSONObject!) { dispatch(input: { tool: "tools_agent", input: $i }) { status errorKind errorMessage } }`,
      {
        i: { threadId, userMessage: "mine now", llmProvider: "s" },
      },
      bob,
    );
    expect(asTool.data!.dispatch).toMatchObject({ status: "FAILED", errorKind: "NOT_FOUND" });
    expect(asTool.data!.dispatch.errorMessage).not.toContain(threadId);
    expect(asTool.data!.dispatch.errorMessage).not.toContain(runId);

    // The owner's thread is untouched and still resumable by its owner.
    const view = await http(THREAD, { id: threadId });
    expect(view.data!.thread.messages.map((m: { content: string }) => m.content)).not.toContain("bob was here");
    expect(await r.db.agentRun.count()).toBe(1);
  });

  it("should refuse a new run on another caller's thread over graphql-ws, and let its owner go on", async () => {
    const r = await start();
    const bob = await r.keys.create("bob", "USER");
    useScript(r.agents, "s", () => ({ text: "hi" }));
    const { threadId } = (await http(RUN, { i: { userMessage: "hi", llmProvider: "s" } })).data!.runAgent;
    const refused = await stream({ input: { threadId, userMessage: "x", llmProvider: "s" } }, client(bob));
    expect(refused.events).toEqual([]);
    expect(refused.sub.errors).toMatchObject([{ extensions: { code: "NOT_FOUND" } }]);
    expect(JSON.stringify(refused.sub.errors)).not.toContain(threadId);
    const own = await stream({ input: { threadId, userMessage: "again", llmProvider: "s" } });
    expect(own.sub.errors).toEqual([]);
    expect(own.events.at(-1)).toMatchObject({ type: "message_final" });
  });
});
