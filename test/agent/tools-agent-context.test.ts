import { describe, expect, it } from "vitest";
import { as } from "../helpers/runtime.ts";
import { ofType, runToEnd, types, useScript } from "./support.ts";
import { agentRuntimePerTest, resultsSeen, until } from "./tools-agent-support.ts";

const setup = agentRuntimePerTest();

describe("prompts, skills and presets", () => {
  it("should fill {{placeholders}} from variables in the system and user messages", async () => {
    const r = await setup();
    const model = useScript(r.agents, "s", [{ text: "ok" }]);
    await runToEnd(r.agents, {
      systemMessage: "You help {{customer.name}} with {{tools}}.",
      userMessage: "Order {{order}}",
      variables: { customer: { name: "Ada" }, order: 17 },
      toolNames: ["echo"],
      llmProvider: "s",
    });
    const prompt = model.seen[0].prompt;
    expect(prompt[0]).toMatchObject({
      role: "system",
      content: expect.stringContaining("You help Ada with echo, ask_caller."),
    });
    expect(prompt.at(-1)).toMatchObject({ role: "user", content: [{ type: "text", text: "Order 17" }] });
  });

  it("should refuse a placeholder without a value before the run starts", async () => {
    const r = await setup();
    await expect(
      r.agents.start({ options: { userMessage: "Hi {{name}}", systemMessage: "{{persona}}" }, caller: as("USER") }),
    ).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [
        { path: "/systemMessage", message: "the placeholder {{persona}} has no value (pass it in variables)" },
        { path: "/userMessage", message: "the placeholder {{name}} has no value (pass it in variables)" },
      ],
    });
    expect(await r.db.agentRun.count()).toBe(0);
  });

  it("should load stored and inline skills into the system prompt, and refuse an unknown skill", async () => {
    const r = await setup();
    await r.agents.skills.put(
      { name: "tone", description: "Be brief", instructions: "Answer in one sentence." },
      as("ADMIN"),
    );
    const model = useScript(r.agents, "s", [{ text: "ok" }]);
    await runToEnd(r.agents, {
      userMessage: "?",
      skills: ["tone"],
      inlineSkills: [{ name: "units", content: "Use SI units." }],
      llmProvider: "s",
    });
    const system = model.seen[0].prompt[0].content as string;
    expect(system).toContain("### tone\nAnswer in one sentence.");
    expect(system).toContain("### units\nUse SI units.");
    await expect(
      r.agents.start({ options: { userMessage: "?", skills: ["tone", "nope"] }, caller: as("USER") }),
    ).rejects.toMatchObject({
      issues: [{ path: "/skills/1", message: 'no stored skill named "nope"' }],
    });
  });

  it("should offer an inline preset without its baked properties and merge them at the chokepoint", async () => {
    const r = await setup();
    const model = useScript(r.agents, "s", [{ toolCalls: [{ toolName: "double", input: { a: 21 } }] }, { text: "42" }]);
    const { log } = await runToEnd(r.agents, {
      userMessage: "?",
      presets: [
        { name: "double", description: "Doubles a", baseTool: "calculate", fixedKwargs: { op: "multiply", b: 2 } },
      ],
      llmProvider: "s",
    });
    const offered = model.seen[0].tools!.find((t) => t.name === "double") as {
      inputSchema: { properties: object; required: string[] };
    };
    expect(Object.keys(offered.inputSchema.properties)).toEqual(["a"]);
    expect(offered.inputSchema.required).toEqual(["a"]);
    expect(ofType(log, "tool_result_step")[0]).toMatchObject({
      tool: "double",
      isError: false,
      result: { result: 42 },
    });
    const [run] = await r.runs.list({ tool: "calculate" }, 10);
    expect(run.input).toEqual({ a: 21, op: "multiply", b: 2 });
  });

  it("should refuse inline presets with !ENV markers or unknown baked keys", async () => {
    const r = await setup();
    await expect(
      r.agents.start({
        options: {
          userMessage: "?",
          presets: [{ name: "p", description: "d", baseTool: "echo", fixedKwargs: { text: "!ENV HOME", nope: 1 } }],
        },
        caller: as("USER"),
      }),
    ).rejects.toMatchObject({
      issues: [
        {
          path: "/presets/0/fixedKwargs/text",
          message: "!ENV markers are not allowed in inline presets; store the preset instead",
        },
        { path: "/presets/0/fixedKwargs/nope", message: 'is not an input property of "echo" (it has: text)' },
      ],
    });
  });
});

describe("sub-agents", () => {
  it("should run a sub-agent as a tool of the parent, attributing its events to it", async () => {
    const r = await setup();
    const model = useScript(r.agents, "s", (view) => {
      const system = view.prompt[0].content as string;
      if (system.startsWith("You research"))
        return view.call === 1
          ? { toolCalls: [{ toolName: "echo", input: { text: "fact" } }] }
          : { text: "the fact is fact" };
      return view.prompt.some((m) => m.role === "tool")
        ? { text: "Summary: the fact is fact" }
        : { toolCalls: [{ toolName: "researcher", input: { task: "find the fact" } }] };
    });
    const { log } = await runToEnd(r.agents, {
      userMessage: "?",
      subagents: [
        { name: "researcher", description: "Finds facts", systemPrompt: "You research.", toolNames: ["echo"] },
      ],
      llmProvider: "s",
    });
    const sub = log.filter((e) => "agent" in e && e.agent === "researcher");
    expect(types(sub)).toEqual([
      "tool_call_step",
      "tool_result_step",
      "intermediate_delta",
      "intermediate_delta",
      "intermediate_delta",
      "intermediate_delta",
    ]);
    // The sub-agent numbers its own turns: its answer is its turn 2.
    expect(ofType(log, "intermediate_delta").map((d) => d.turn)).toEqual([2, 2, 2, 2]);
    expect(
      ofType(log, "message_delta")
        .map((d) => d.text)
        .join(""),
    ).toBe("Summary: the fact is fact");
    expect(ofType(log, "tool_result_step").find((e) => e.tool === "researcher")).toMatchObject({
      agent: null,
      isError: false,
      result: "the fact is fact",
    });
    expect(log.filter((e) => e.final)).toEqual([expect.objectContaining({ type: "message_final", agent: null })]);
    expect(ofType(log, "run_usage")).toHaveLength(1);
    expect(model.seen).toHaveLength(4);
  });
});

describe("threads", () => {
  it("should persist the conversation and give a later run on the thread its history", async () => {
    const r = await setup();
    const model = useScript(r.agents, "s", [
      { toolCalls: [{ toolName: "echo", input: { text: "blue" } }] },
      { text: "Your colour is blue." },
      { text: "You said blue." },
    ]);
    const first = await runToEnd(r.agents, { userMessage: "My colour is blue", toolNames: ["echo"], llmProvider: "s" });
    const threadId = first.started.threadId;
    await runToEnd(r.agents, { threadId, userMessage: "What did I say?", toolNames: ["echo"], llmProvider: "s" });
    const roles = model.seen[2].prompt.map((m) => m.role);
    expect(roles).toEqual(["system", "user", "assistant", "tool", "assistant", "user"]);
    const thread = await r.agents.thread(threadId, as("USER"));
    expect(thread!.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(thread!.messages.at(-1)?.content).toBe("You said blue.");
  });

  it("should refuse another caller's thread", async () => {
    const r = await setup();
    useScript(r.agents, "s", [{ text: "hi" }]);
    const { started } = await runToEnd(r.agents, { userMessage: "hi", llmProvider: "s" }, as("USER"));
    const stranger = { role: "USER" as const, keyName: "someone-else", keyId: "k2" };
    expect(await r.agents.thread(started.threadId, stranger)).toBeNull();
    await expect(
      r.agents.start({ options: { threadId: started.threadId, userMessage: "x" }, caller: stranger }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(r.agents.thread(started.threadId, as("ADMIN"))).resolves.toMatchObject({ id: started.threadId });
  });

  it("should answer a user message recorded with appendThreadMessages when no userMessage is given", async () => {
    const r = await setup();
    const model = useScript(r.agents, "s", [{ text: "answered" }]);
    await r.agents.appendThreadMessages(null, "manual", [{ role: "user", content: "recorded question" }], as("USER"));
    const { log } = await runToEnd(r.agents, { threadId: "manual", llmProvider: "s" });
    expect(types(log).at(-1)).toBe("message_final");
    expect(model.seen[0].prompt.at(-1)).toMatchObject({
      role: "user",
      content: [{ type: "text", text: "recorded question" }],
    });
    await expect(r.agents.start({ options: { threadId: "empty-thread" }, caller: as("USER") })).rejects.toMatchObject({
      issues: [{ path: "/userMessage" }],
    });
  });
});

describe("parked calls", () => {
  it("should give the model a TIMEOUT error result on resume when the interaction expired", async () => {
    const r = await setup();
    useScript(r.agents, "s", (v) =>
      v.prompt.at(-1)?.role === "tool"
        ? { text: "It timed out." }
        : { toolCalls: [{ toolName: "brief_wait", input: {} }] },
    );
    const first = await runToEnd(r.agents, { userMessage: "wait", toolNames: ["brief_wait"], llmProvider: "s" });
    expect(types(first.log)).toEqual(["tool_call_step", "run_usage", "suspended_final"]);
    const [call] = ofType(first.log, "tool_call_step");
    const toolRun = (await r.runs.list({ tool: "brief_wait" }, 1))[0];
    await until(async () => (await r.runs.get(toolRun.id))?.status === "FAILED");
    const { log } = await runToEnd(r.agents, { threadId: first.started.threadId, resume: true });
    expect(ofType(log, "tool_result_step")).toEqual([
      expect.objectContaining({
        callId: call.callId,
        isError: true,
        result: expect.objectContaining({ kind: "TIMEOUT" }),
      }),
    ]);
    expect(types(log).at(-1)).toBe("message_final");
  });
});

describe("secret tools", () => {
  it("should never store or publish a secret tool's arguments or results, even when the model repeats them", async () => {
    const r = await setup();
    const published: unknown[] = [];
    r.bus.listen("agentEvent", (e) => published.push(e));
    const model = useScript(r.agents, "s", (view) => {
      const result = view.prompt.flatMap((m) => (m.role === "tool" ? m.content : []))[0] as
        { output: { value: string } } | undefined;
      return result
        ? { text: `The secret is ${result.output.value}` }
        : { toolCalls: [{ toolName: "vault_read", input: { name: "db-password" } }] };
    });
    const { started, log } = await runToEnd(
      r.agents,
      { userMessage: "?", toolNames: ["vault_read"], llmProvider: "s" },
      as("ADMIN"),
    );
    expect(JSON.stringify(resultsSeen(model, 1))).toContain("s3cr3t-for-db-password");
    const stored = JSON.stringify([
      log,
      published,
      await r.agents.thread(started.threadId, as("ADMIN")),
      await r.agents.store.get(started.runId),
    ]);
    expect(stored).not.toContain("s3cr3t-for-db-password");
    expect(stored).not.toContain("db-password");
    expect(ofType(log, "message_final")[0].text).toContain("[redacted]");
  });
});
