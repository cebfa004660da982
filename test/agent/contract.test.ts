import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { Agent, AgentInterruptedError, drain, type AgentContext, type AgentRunOptions } from "../../src/agent/agent.ts";
import { DefinitionError } from "../../src/definition-error.ts";
import { finalEventForValue, type StreamEvent } from "../../src/agent/events.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { runToEnd, types } from "./support.ts";

class EchoAgent extends Agent {
  static override toolName = "echo_agent";
  static override toolDescription = "Answers with the question, upper-cased.";
  static override ToolInput = z.object({
    question: z.string(),
    shout: z.boolean().optional(),
    threadId: z.string().optional(),
  });
  static override presetBakeableFields = ["shout"];
  override async run(options: AgentRunOptions): Promise<unknown> {
    const q = String(options.question);
    return options.shout ? q.toUpperCase() : q;
  }
}

class StructuredAgent extends Agent {
  static override toolName = "structured_agent";
  static override toolDescription = "Returns an object.";
  static override ToolInput = z.object({ n: z.number() });
  static override specRunnable = true;
  override async run(options: AgentRunOptions): Promise<unknown> {
    return { doubled: Number(options.n) * 2 };
  }
}

class FailingAgent extends Agent {
  static override toolName = "failing_agent";
  static override toolDescription = "Always fails.";
  static override ToolInput = z.object({});
  override async run(): Promise<unknown> {
    throw new TypeError("secret internals at /home/x");
  }
}

class InterruptingAgent extends Agent {
  static override toolName = "interrupting_agent";
  static override toolDescription = "Stops at an interrupt.";
  static override ToolInput = z.object({});
  override async run(options: AgentRunOptions, ctx: AgentContext): Promise<unknown> {
    return drain(this.astream(options, ctx));
  }
  override async *astream(_options: AgentRunOptions, _ctx: AgentContext): AsyncGenerator<StreamEvent> {
    yield { type: "message_delta", final: false, text: "thinking" };
    yield {
      type: "interrupt_final",
      final: true,
      interruptId: "i-1",
      payload: { options: ["a", "b"] },
      reason: "pick one",
    };
  }
}

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

async function runtimeWith(
  ...agents: (typeof EchoAgent | typeof StructuredAgent | typeof FailingAgent | typeof InterruptingAgent)[]
) {
  const app = new App();
  for (const a of agents) app.agent(a);
  rt = await testRuntime({ app });
  return rt;
}

describe("registration", () => {
  it("should put every registered agent on the surface as an AGENT tool whose input schema is its ToolInput", async () => {
    const r = await runtimeWith(EchoAgent);
    const entry = r.surface.resolve("echo_agent")!;
    expect(entry.origin).toBe("AGENT");
    expect(entry.description).toBe(EchoAgent.toolDescription);
    expect(entry.inputSchema).toMatchObject({
      type: "object",
      properties: { question: { type: "string" }, shout: { type: "boolean" } },
      required: ["question"],
      additionalProperties: false,
    });
    expect(r.surface.resolve("tools_agent")?.origin).toBe("AGENT");
    expect(r.agents.list().map((a) => a.name)).toEqual(["echo_agent", "tools_agent"]);
  });

  it("should list preset-bakeable fields as all fields for a specRunnable agent and only the declared ones otherwise", async () => {
    const r = await runtimeWith(EchoAgent, StructuredAgent);
    const info = Object.fromEntries(r.agents.list().map((a) => [a.name, a]));
    expect(info.echo_agent.presetBakeableFields).toEqual(["shout"]);
    expect(info.structured_agent.presetBakeableFields).toEqual(["n"]);
    expect(info.tools_agent.specRunnable).toBe(true);
  });

  it("should refuse an agent class that breaks a rule, naming the rule", () => {
    const app = new App();
    const bad = (patch: Record<string, unknown>) => Object.assign(class extends EchoAgent {}, patch);
    const rule = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(DefinitionError);
        return (e as DefinitionError).rule;
      }
      return "accepted";
    };
    expect(rule(() => app.agent(bad({ toolName: "has space" })))).toBe("agent.wire-safe-name");
    expect(rule(() => app.agent(bad({ toolDescription: " " })))).toBe("agent.description");
    expect(rule(() => app.agent(bad({ ToolInput: { type: "object" } })))).toBe("agent.tool-input");
    expect(rule(() => app.agent(bad({ presetBakeableFields: ["nope"] })))).toBe("agent.bakeable-fields");
    app.agent(EchoAgent);
    expect(rule(() => app.agent(EchoAgent))).toBe("agent.duplicate-name");
  });
});

describe("the default astream", () => {
  it("should emit exactly one MessageFinal for a string result", async () => {
    const r = await runtimeWith(EchoAgent);
    const { log } = await runToEnd(r.agents, { question: "hi", shout: true }, as("USER"), "echo_agent");
    expect(log).toEqual([expect.objectContaining({ type: "message_final", final: true, text: "HI", seq: 1 })]);
  });

  it("should emit exactly one StructuredFinal for any other value", async () => {
    const r = await runtimeWith(StructuredAgent);
    const { log } = await runToEnd(r.agents, { n: 21 }, as("USER"), "structured_agent");
    expect(log).toEqual([
      expect.objectContaining({ type: "structured_final", final: true, data: { doubled: 42 }, seq: 1 }),
    ]);
  });

  it("should map values through finalEventForValue", () => {
    expect(finalEventForValue("x")).toEqual({ type: "message_final", final: true, text: "x" });
    expect(finalEventForValue([1])).toEqual({ type: "structured_final", final: true, data: [1] });
    expect(finalEventForValue(null)).toEqual({ type: "structured_final", final: true, data: null });
  });

  it("should end a run whose agent throws with a masked INTERNAL failure and no terminal", async () => {
    const r = await runtimeWith(FailingAgent);
    const { log } = await runToEnd(r.agents, {}, as("USER"), "failing_agent");
    expect(log).toEqual([
      expect.objectContaining({
        type: "run_failed",
        kind: "INTERNAL",
        message: "the agent failed unexpectedly (TypeError)",
        seq: 1,
      }),
    ]);
    expect((await r.agents.store.get(log[0].runId))?.status).toBe("FAILED");
  });
});

describe("the drain rule", () => {
  async function* stream(...events: StreamEvent[]) {
    yield* events;
  }
  const receipt: StreamEvent = {
    type: "suspended_final",
    final: true,
    interactionIds: ["a", "b"],
    callerInteractionIds: ["b"],
    threadId: "t",
    expiryAt: null,
  };

  it("should return a message's text and structured output's data", async () => {
    await expect(
      drain(
        stream({ type: "message_delta", final: false, text: "h" }, { type: "message_final", final: true, text: "hi" }),
      ),
    ).resolves.toBe("hi");
    await expect(drain(stream({ type: "structured_final", final: true, data: { a: 1 } }))).resolves.toEqual({ a: 1 });
  });

  it("should raise AgentInterruptedError carrying the interrupt", async () => {
    const interrupt = { type: "interrupt_final", final: true, interruptId: "i", payload: 1, reason: "why" } as const;
    const error = (await drain(stream(interrupt)).catch((e) => e)) as AgentInterruptedError;
    expect(error).toBeInstanceOf(AgentInterruptedError);
    expect(error.interrupts).toEqual([interrupt]);
  });

  it("should return a suspended receipt for a SuspendedFinal and the asks for an AsksFinal", async () => {
    await expect(drain(stream(receipt))).resolves.toEqual({
      suspended: true,
      threadId: "t",
      interactionIds: ["a", "b"],
      callerInteractionIds: ["b"],
      expiryAt: null,
    });
    await expect(drain(stream({ type: "asks_final", final: true, asks: [{ id: "q" }] }))).resolves.toEqual({
      asks: [{ id: "q" }],
    });
  });

  it("should refuse a stream with no terminal, or with an event after its terminal", async () => {
    await expect(drain(stream({ type: "message_delta", final: false, text: "h" }))).rejects.toThrow(
      /without a terminal/,
    );
    await expect(
      drain(
        stream({ type: "message_final", final: true, text: "a" }, { type: "message_delta", final: false, text: "b" }),
      ),
    ).rejects.toThrow(/after the terminal/);
  });
});

describe("an agent dispatched as a tool", () => {
  it("should run through the chokepoint and return the drained value as the run's data", async () => {
    const r = await runtimeWith(StructuredAgent);
    const run = await r.dispatcher.run({
      tool: "structured_agent",
      input: { n: 4 },
      caller: as("USER"),
      door: "graphql",
    });
    expect(run).toMatchObject({ status: "SUCCEEDED", data: { doubled: 8 } });
    const agentRunId = (run.details as { agentRunId: string }).agentRunId;
    expect((await r.agents.store.get(agentRunId))?.status).toBe("SUCCEEDED");
  });

  it("should refuse invalid agent input at the chokepoint with every issue", async () => {
    const r = await runtimeWith(EchoAgent);
    const run = await r.dispatcher.run({
      tool: "echo_agent",
      input: { shout: "yes", extra: 1 },
      caller: as("USER"),
      door: "graphql",
    });
    expect(run).toMatchObject({ status: "FAILED", errorKind: "INVALID_INPUT" });
    expect((run.details as { issues: { path: string }[] }).issues.map((i) => i.path).sort()).toEqual([
      "/extra",
      "/question",
      "/shout",
    ]);
  });

  it("should fail the tool run with CONFLICT when the agent stops at an interrupt, naming the run to resume", async () => {
    const r = await runtimeWith(InterruptingAgent);
    const run = await r.dispatcher.run({ tool: "interrupting_agent", input: {}, caller: as("USER"), door: "graphql" });
    expect(run).toMatchObject({ status: "FAILED", errorKind: "CONFLICT" });
    expect(run.errorMessage).toMatch(/approval interrupt \(pick one\); resume it/);
  });

  it("should carry an agent failure's kind onto the tool run", async () => {
    const r = await runtimeWith(FailingAgent);
    const run = await r.dispatcher.run({ tool: "failing_agent", input: {}, caller: as("USER"), door: "graphql" });
    expect(run).toMatchObject({ status: "FAILED", errorKind: "INTERNAL" });
    expect(run.errorMessage).not.toContain("/home/x");
  });
});

describe("presets over agents", () => {
  it("should accept only declared bakeable fields on an agent that is not specRunnable", async () => {
    const r = await runtimeWith(EchoAgent);
    const admin = as("ADMIN");
    await expect(
      r.presets.create(
        { name: "echo_loud", description: "shouts", baseTool: "echo_agent", fixedKwargs: { shout: true } },
        admin,
      ),
    ).resolves.toMatchObject({
      name: "echo_loud",
    });
    await expect(
      r.presets.create(
        { name: "echo_fixed", description: "fixed", baseTool: "echo_agent", fixedKwargs: { question: "q" } },
        admin,
      ),
    ).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: "/fixedKwargs/question", message: expect.stringContaining("not a preset-bakeable field") }],
    });
    const run = await r.dispatcher.run({
      tool: "echo_loud",
      input: { question: "hey" },
      caller: as("USER"),
      door: "graphql",
    });
    expect(run).toMatchObject({ status: "SUCCEEDED", data: "HEY" });
  });

  it("should accept every ToolInput field on a specRunnable agent", async () => {
    const r = await runtimeWith(StructuredAgent);
    await expect(
      r.presets.create(
        { name: "double_21", description: "d", baseTool: "structured_agent", fixedKwargs: { n: 21 } },
        as("ADMIN"),
      ),
    ).resolves.toMatchObject({
      name: "double_21",
    });
    const run = await r.dispatcher.run({ tool: "double_21", input: {}, caller: as("USER"), door: "graphql" });
    expect(run).toMatchObject({ status: "SUCCEEDED", data: { doubled: 42 } });
    expect(r.surface.resolve("double_21")?.inputSchema.properties).toEqual({});
  });
});

describe("threads", () => {
  it("should refuse appendThreadMessages for an agent without thread memory", async () => {
    const r = await runtimeWith(EchoAgent);
    await expect(
      r.agents.appendThreadMessages("echo_agent", "t-1", [{ role: "user", content: "hi" }], as("USER")),
    ).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      message: expect.stringContaining("keeps no thread memory"),
    });
    expect(await r.agents.threads.get("t-1")).toBeNull();
  });

  it("should record messages without running, and read them back in order", async () => {
    const r = await runtimeWith();
    await r.agents.appendThreadMessages(
      null,
      "t-2",
      [
        { role: "user", content: "first" },
        { role: "assistant", content: "second" },
      ],
      as("USER"),
    );
    const view = await r.agents.appendThreadMessages(null, "t-2", [{ role: "user", content: "third" }], as("USER"));
    expect(view.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "first"],
      ["assistant", "second"],
      ["user", "third"],
    ]);
    expect(await r.agents.runningCount).toBe(0);
  });

  it("should refuse malformed messages with every issue and store nothing", async () => {
    const r = await runtimeWith();
    await expect(
      r.agents.appendThreadMessages(null, "t-3", [{ role: "system", content: 1, x: 2 }], as("USER")),
    ).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [
        { path: "/messages/0/role", message: 'must be "user" or "assistant"' },
        { path: "/messages/0/content", message: "must be a string" },
        { path: "/messages/0/x", message: "is not a message field (role, content)" },
      ],
    });
    expect(await r.agents.threads.get("t-3")).toBeNull();
  });
});

describe("an agent's stream", () => {
  it("should number events 1..n and end with exactly one terminal", async () => {
    const r = await runtimeWith(InterruptingAgent);
    const { log } = await runToEnd(r.agents, {}, as("USER"), "interrupting_agent");
    expect(types(log)).toEqual(["message_delta", "interrupt_final"]);
    expect(log.map((e) => e.seq)).toEqual([1, 2]);
    expect((await r.agents.store.get(log[0].runId))?.status).toBe("INTERRUPTED");
  });
});
