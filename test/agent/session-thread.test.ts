import { afterEach, describe, expect, it } from "vitest";
import {
  agentSessionThread,
  getAgentSessionThread,
  resetAgentSessionThread,
  setAgentSessionThread,
} from "../../src/index.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { runToEnd, useScript } from "./support.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

describe("agentSessionThread: deposit threadId as the ambient session thread for the wrapped block", () => {
  it("should deposit the thread for the block and reset it in a finally, even when the block throws", async () => {
    expect(getAgentSessionThread()).toBeNull();
    await agentSessionThread("t-1", async () => {
      expect(getAgentSessionThread()).toBe("t-1");
      await Promise.resolve();
      expect(getAgentSessionThread()).toBe("t-1");
    });
    expect(getAgentSessionThread()).toBeNull();
    await expect(agentSessionThread("t-2", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(getAgentSessionThread()).toBeNull();
  });

  it("should let a task created inside the block inherit the deposit on a copy: its own change does not leak out", async () => {
    await agentSessionThread("outer", async () => {
      const child = (async () => {
        await Promise.resolve();
        const inherited = getAgentSessionThread();
        setAgentSessionThread("child-only");
        return inherited;
      })();
      expect(await child).toBe("outer");
      expect(getAgentSessionThread()).toBe("outer");
    });
  });

  it("should bind with setAgentSessionThread and restore the previous value with resetAgentSessionThread(token)", async () => {
    await agentSessionThread("base", async () => {
      const token = setAgentSessionThread("bound");
      expect(getAgentSessionThread()).toBe("bound");
      const inner = setAgentSessionThread(null);
      expect(getAgentSessionThread()).toBeNull();
      resetAgentSessionThread(inner);
      expect(getAgentSessionThread()).toBe("bound");
      resetAgentSessionThread(token);
      expect(getAgentSessionThread()).toBe("base");
    });
  });

  it("should refuse a thread id that is not 1 to 200 characters", () => {
    expect(() => agentSessionThread("", () => 1)).toThrow(/1 to 200 characters/);
  });
});

describe("the ambient session thread and agent runs", () => {
  it("should run an agent started without a threadId inside the wrap on the session thread", async () => {
    rt = await testRuntime();
    useScript(rt.agents, "s", [{ text: "one" }, { text: "two" }]);
    const first = await agentSessionThread("session-1", () =>
      runToEnd(rt!.agents, { userMessage: "hi", llmProvider: "s" }),
    );
    const second = await agentSessionThread("session-1", () =>
      runToEnd(rt!.agents, { userMessage: "again", llmProvider: "s" }),
    );
    expect([first.started.threadId, second.started.threadId]).toEqual(["session-1", "session-1"]);
    expect((await rt.agents.thread("session-1", as("USER")))!.messages.map((m) => m.content)).toEqual([
      "hi",
      "one",
      "again",
      "two",
    ]);
  });

  it("should mint a fresh thread for a run absent the wrap, and keep an explicit threadId over the ambient one", async () => {
    rt = await testRuntime();
    useScript(rt.agents, "s", [{ text: "a" }, { text: "b" }]);
    const minted = await runToEnd(rt.agents, { userMessage: "hi", llmProvider: "s" });
    expect(minted.started.threadId).toMatch(/^[0-9a-f-]{36}$/);
    const explicit = await agentSessionThread("ambient", () =>
      runToEnd(rt!.agents, { userMessage: "hi", llmProvider: "s", threadId: "mine" }),
    );
    expect(explicit.started.threadId).toBe("mine");
  });

  it("should let a nested agent-as-tool dispatched inside the wrap inherit the session thread instead of minting its own", async () => {
    rt = await testRuntime();
    useScript(rt.agents, "s", [{ text: "nested answer" }]);
    const run = await agentSessionThread("conversation-7", () =>
      rt!.dispatcher.run({
        tool: "tools_agent",
        input: { userMessage: "hi", llmProvider: "s" },
        caller: as("USER"),
        door: "graphql",
      }),
    );
    expect(run.status).toBe("SUCCEEDED");
    expect(run.details).toMatchObject({ threadId: "conversation-7" });
  });

  it("should give an agent-as-tool called by an agent run on the session thread its own thread, not a conflict", async () => {
    rt = await testRuntime();
    useScript(rt.agents, "s", (v) => {
      const nested = v.prompt.some((m) => m.role === "user" && JSON.stringify(m.content).includes("inner question"));
      if (nested) return { text: "inner answer" };
      return v.prompt.at(-1)?.role === "tool"
        ? { text: "outer answer" }
        : { toolCalls: [{ toolName: "tools_agent", input: { userMessage: "inner question", llmProvider: "s" } }] };
    });
    const outer = await agentSessionThread("session-9", () =>
      runToEnd(rt!.agents, { userMessage: "outer question", llmProvider: "s", toolNames: ["tools_agent"] }),
    );
    expect(outer.started.threadId).toBe("session-9");
    const nested = (await rt.runs.list({ tool: "tools_agent" }, 1))[0];
    expect(nested.status).toBe("SUCCEEDED");
    expect((nested.details as { threadId: string }).threadId).not.toBe("session-9");
  });
});
