import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, type AgentContext, type AgentRunOptions } from "../../src/agent/agent.ts";
import { DefinitionError } from "../../src/definition-error.ts";
import type { StreamEvent } from "../../src/agent/events.ts";
import { runLoop } from "../../src/agent/tools-agent/loop.ts";
import { App } from "../../src/app.ts";
import { apiRefusal } from "../helpers/refusals.ts";
import { as } from "../helpers/runtime.ts";
import { agentRuntimePerTest, ofType, runToEnd, types, useScript } from "./support.ts";

const setup = agentRuntimePerTest();

/** The refusal of a start: its ApiError. */
const refusal = apiRefusal;

describe("seed 002: run(strategy=...) — a named, registered loop strategy", () => {
  it('should run the tools-agent loop when no strategy is named, and the same loop when "tools" is named', async () => {
    const r = await setup();
    useScript(r.agents, "s", [{ text: "plain" }, { text: "named" }]);
    const plain = await runToEnd(r.agents, { userMessage: "hi", llmProvider: "s" });
    const named = await runToEnd(r.agents, { userMessage: "hi", llmProvider: "s", strategy: "tools" });
    expect(ofType(plain.log, "message_final")[0].text).toBe("plain");
    expect(ofType(named.log, "message_final")[0].text).toBe("named");
    expect((await r.agents.store.get(named.started.runId))!.input).toMatchObject({ strategy: "tools" });
  });

  it("should run a strategy registered with app.strategy when a run names it, its tool calls going through the chokepoint as the caller", async () => {
    const r = await setup((app) =>
      app.strategy("calculate_first", async function* (cfg, io, history): AsyncGenerator<StreamEvent> {
        const outcome = await io.env.runTool("calculate", { op: "add", a: 2, b: 3 });
        yield {
          type: "message_final",
          final: true,
          text: `${cfg.tools.length} tools, ${history.length} messages, sum ${JSON.stringify(outcome.output.data)}`,
        };
      }),
    );
    const { started, log } = await runToEnd(
      r.agents,
      { userMessage: "add", toolNames: ["calculate"], strategy: "calculate_first" },
      as("USER"),
    );
    expect(types(log)).toEqual(["message_final"]);
    expect(ofType(log, "message_final")[0].text).toBe('2 tools, 1 messages, sum {"result":5}');
    expect(await r.runs.list({ tool: "calculate" }, 10)).toEqual([
      expect.objectContaining({ door: "agent", parentRunId: started.runId, callerRole: "USER", status: "SUCCEEDED" }),
    ]);
  });

  it("should let a plugin bring a strategy, and let that strategy delegate to the tools loop", async () => {
    const r = await setup((app) =>
      app.plugin({
        name: "careful",
        strategies: {
          careful: (cfg, io, history, resumed) =>
            runLoop({ ...cfg, system: `${cfg.system}\nBe careful.` }, io, history, resumed),
        },
      }),
    );
    const model = useScript(r.agents, "s", [{ text: "carefully done" }]);
    const { log } = await runToEnd(r.agents, { userMessage: "go", llmProvider: "s", strategy: "careful" });
    expect(ofType(log, "message_final")[0].text).toBe("carefully done");
    expect(JSON.stringify(model.seen[0].prompt[0])).toContain("Be careful.");
  });

  it("should refuse an unknown strategy with BAD_USER_INPUT naming the known ones, storing nothing", async () => {
    const r = await setup((app) => app.strategy("mine", runLoop));
    const e = await refusal(r.agents.start({ options: { userMessage: "hi", strategy: "nope" }, caller: as("USER") }));
    expect(e.code).toBe("BAD_USER_INPUT");
    expect(e.issues).toEqual([{ path: "/strategy", message: 'no strategy named "nope" (known: mine, tools)' }]);
    expect(await r.db.agentRun.count()).toBe(0);
    expect(await r.db.thread.count()).toBe(0);
  });
});

describe("seed 002: run(checkpoint_provider=..., store_provider=...) — named, registered providers; the database ones are the default", () => {
  it("should keep the thread's memory in the database by default, and in the named checkpoint provider when a run names one", async () => {
    const r = await setup();
    const model = useScript(r.agents, "s", [{ text: "first" }, { text: "second" }, { text: "db" }]);
    const one = await runToEnd(r.agents, { userMessage: "remember 7", llmProvider: "s", checkpointProvider: "memory" });
    await runToEnd(r.agents, {
      userMessage: "what number?",
      llmProvider: "s",
      checkpointProvider: "memory",
      threadId: one.started.threadId,
    });
    // The second turn read the first from the memory provider...
    expect(model.seen[1].prompt.filter((m) => m.role !== "system").map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
    ]);
    // ...and nothing of it went to the database's thread rows.
    expect(await r.db.threadMessage.count()).toBe(0);
    const db = await runToEnd(r.agents, { userMessage: "in the db", llmProvider: "s" });
    expect((await r.agents.threads.get(db.started.threadId))!.messages.map((m) => m.content)).toEqual([
      "in the db",
      "db",
    ]);
  });

  it("should give an agent the named store provider (database by default) as memory that outlives its thread", async () => {
    class Counter extends Agent {
      static override toolName = "counter";
      static override toolDescription = "Counts its runs in its store.";
      static override ToolInput = z.object({ storeProvider: z.string().optional() });
      override async run(options: AgentRunOptions, ctx: AgentContext): Promise<unknown> {
        const store = ctx.services.plugins.store(options.storeProvider);
        const n = ((await store.get("counter", "runs")) as number | undefined) ?? 0;
        await store.put("counter", "runs", n + 1);
        return `run ${n + 1}`;
      }
    }
    const r = await setup((app) => app.agent(Counter));
    const answer = async (options: AgentRunOptions) =>
      ofType((await runToEnd(r.agents, options, as("USER"), "counter")).log, "message_final")[0].text;
    expect(await answer({})).toBe("run 1");
    expect(await answer({})).toBe("run 2");
    expect(await r.db.agentStoreItem.findMany()).toEqual([
      expect.objectContaining({ namespace: "counter", key: "runs", value: 2 }),
    ]);
    expect(await answer({ storeProvider: "memory" })).toBe("run 1");
    expect(await answer({ storeProvider: "memory" })).toBe("run 2");
    expect(await r.db.agentStoreItem.findMany()).toEqual([expect.objectContaining({ value: 2 })]);
  });

  it("should use a checkpoint or store provider a plugin registered by name", async () => {
    const appended: string[] = [];
    const r = await setup((app) =>
      app.plugin({
        name: "audit-storage",
        checkpointProviders: {
          audit: {
            history: async () => [{ role: "user", content: "an earlier question" }],
            append: async (threadId, messages) =>
              void appended.push(...messages.map((m) => `${threadId}:${m.role}:${m.content}`)),
          },
        },
      }),
    );
    const model = useScript(r.agents, "s", [{ text: "answer" }]);
    const { started } = await runToEnd(r.agents, {
      userMessage: "now",
      llmProvider: "s",
      checkpointProvider: "audit",
      threadId: "t-audit",
    });
    expect(started.threadId).toBe("t-audit");
    expect(JSON.stringify(model.seen[0].prompt)).toContain("an earlier question");
    expect(appended).toEqual(["t-audit:user:now", "t-audit:assistant:answer"]);
  });

  it("should refuse an unknown checkpointProvider or storeProvider with BAD_USER_INPUT naming the known ones, storing nothing", async () => {
    const r = await setup();
    const e = await refusal(
      r.agents.start({
        options: { userMessage: "hi", checkpointProvider: "redis", storeProvider: "s3" },
        caller: as("USER"),
      }),
    );
    expect(e.code).toBe("BAD_USER_INPUT");
    expect(e.issues).toEqual([
      { path: "/checkpointProvider", message: 'no checkpointProvider named "redis" (known: database, memory)' },
      { path: "/storeProvider", message: 'no storeProvider named "s3" (known: database, memory)' },
    ]);
    expect(await r.db.agentRun.count()).toBe(0);
  });
});

class Vqa extends Agent {
  static override toolName = "vqa";
  static override toolDescription = "Answers a question about an image.";
  static override ToolInput = z.object({ question: z.string() });
  static override extrasKeys = ["imageUrl"];
  override async run(options: AgentRunOptions): Promise<unknown> {
    return `${String(options.question)} @ ${String(options.imageUrl ?? "none")}`;
  }
}

describe("seed 002: extras_keys — the extra keys an agent accepts beyond its run options and ToolInput", () => {
  it("should accept a declared extra key and refuse any other, naming it, storing nothing", async () => {
    const r = await setup((app) => app.agent(Vqa));
    const ok = await runToEnd(r.agents, { question: "what?", imageUrl: "https://img" }, as("USER"), "vqa");
    expect(ofType(ok.log, "message_final")[0].text).toBe("what? @ https://img");
    const runs = await r.db.agentRun.count();
    const e = await refusal(
      r.agents.start({
        agent: "vqa",
        options: { question: "what?", imageUrl: "u", colour: "red", size: 3 },
        caller: as("USER"),
      }),
    );
    expect(e.code).toBe("BAD_USER_INPUT");
    expect(e.message).toContain('agent "vqa" does not accept "colour", "size"; its extra keys are imageUrl');
    expect(e.issues).toEqual([
      { path: "/colour", message: 'is not an option of agent "vqa"' },
      { path: "/size", message: 'is not an option of agent "vqa"' },
    ]);
    expect(e.message).not.toContain("red");
    expect(await r.db.agentRun.count()).toBe(runs);
  });

  it("should refuse, at registration, extrasKeys that are not names or repeat a run option or ToolInput field", () => {
    const app = new App();
    expect(() => app.agent(Object.assign(class extends Vqa {}, { extrasKeys: ["question"] }))).toThrow(DefinitionError);
    expect(() => app.agent(Object.assign(class extends Vqa {}, { extrasKeys: ["threadId"] }))).toThrow(
      /already run options or ToolInput fields: threadId/,
    );
    expect(() => app.agent(Object.assign(class extends Vqa {}, { extrasKeys: [1] }))).toThrow(
      /extrasKeys must be a list of key names/,
    );
  });
});

describe("seed 002: from_tool_input — an agent's own mapping of its tool input; its errors never interpolate input values", () => {
  class Lookup extends Agent {
    static override toolName = "lookup";
    static override toolDescription = "Looks a term up with an API key.";
    static override ToolInput = z.object({ term: z.string(), apiKey: z.string() });
    static override fromToolInput(validated: Record<string, unknown>): AgentRunOptions {
      if (String(validated.term).startsWith("bad"))
        throw new Error(`cannot look up ${String(validated.term)} with key ${String(validated.apiKey)}`);
      return { ...validated, term: String(validated.term).toUpperCase(), mode: "exact" };
    }
    static override extrasKeys = ["mode"];
    override async run(options: AgentRunOptions): Promise<unknown> {
      return { query: options.term, mode: options.mode, keyLength: String(options.apiKey).length };
    }
  }

  it("should map the tool input through fromToolInput when the agent is called as a tool", async () => {
    const r = await setup((app) => app.agent(Lookup));
    const run = await r.dispatcher.run({
      tool: "lookup",
      input: { term: "otter", apiKey: "k-123456" },
      caller: as("USER"),
      door: "graphql",
    });
    expect(run).toMatchObject({ status: "SUCCEEDED", data: { query: "OTTER", mode: "exact", keyLength: 8 } });
  });

  it("should fail the call as INVALID_INPUT with a message that echoes no input value", async () => {
    const r = await setup((app) => app.agent(Lookup));
    const run = await r.dispatcher.run({
      tool: "lookup",
      input: { term: "bad-term", apiKey: "sk-live-0123456789" },
      caller: as("USER"),
      door: "graphql",
    });
    expect(run).toMatchObject({
      status: "FAILED",
      errorKind: "INVALID_INPUT",
      errorMessage: 'agent "lookup" refused its tool input: cannot look up [redacted] with key [redacted]',
    });
    const stored = await r.db.run.findMany({ where: { tool: "lookup" }, select: { errorMessage: true } });
    expect(JSON.stringify([stored, r.logLines])).not.toContain("sk-live-0123456789");
    expect(await r.db.agentRun.count()).toBe(0);
  });
});
