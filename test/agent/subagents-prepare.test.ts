import { describe, expect, it } from "vitest";
import type { ScriptView, ScriptedTurn } from "../../src/agent/providers/scripted-model.ts";
import { as, type TestRuntime } from "../helpers/runtime.ts";
import { agentRuntimePerTest, ofType, runToEnd, useScript } from "./support.ts";

const setup = agentRuntimePerTest();

/** Starts a run with these sub-agent specs and returns the issue paths it was refused with. */
async function refusedPaths(
  r: TestRuntime,
  subagents: Record<string, unknown>[],
  extra: Record<string, unknown> = {},
): Promise<string[]> {
  try {
    await r.agents.start({
      options: { userMessage: "?", subagents: subagents as never, ...extra },
      caller: as("USER"),
    });
  } catch (e) {
    expect(e).toMatchObject({ code: "BAD_USER_INPUT" });
    return (e as { issues: { path: string }[] }).issues.map((i) => i.path);
  }
  throw new Error("expected the start to be refused");
}

const sub = (name: string, spec: Record<string, unknown> = {}) => ({
  name,
  description: `The ${name}.`,
  systemPrompt: `You are ${name}.`,
  ...spec,
});

/**
 * Plays the parent (calls `child` once, then answers) and the sub-agent `child` (answers `text`), recording the views.
 */
function parentAndChild(
  child: string,
  answer: (view: ScriptView) => ScriptedTurn,
  seen: Record<string, ScriptView[]> = {},
) {
  return (view: ScriptView): ScriptedTurn => {
    const system = typeof view.prompt[0].content === "string" ? view.prompt[0].content : "";
    const who = system.startsWith(`You are ${child}.`) ? child : "parent";
    (seen[who] ??= []).push(view);
    if (who === child) return answer(view);
    return view.prompt.at(-1)?.role === "tool"
      ? { text: "parent done" }
      : { toolCalls: [{ toolName: child, input: { task: "do it" } }] };
  };
}

describe("preparing sub-agents: every problem of every spec is refused at its path before the run starts", () => {
  it("should name unknown tools and presets of a sub-agent under its path", async () => {
    const r = await setup();
    const paths = await refusedPaths(r, [
      sub("a", {
        toolNames: ["echo", "no_such_tool"],
        presets: [{ name: "p", description: "d", baseTool: "missing", fixedKwargs: {} }],
      }),
    ]);
    expect(paths.some((p) => p.startsWith("/subagents/0/toolNames"))).toBe(true);
    expect(paths.some((p) => p.startsWith("/subagents/0/presets"))).toBe(true);
    expect(await r.db.agentRun.count()).toBe(0);
  });

  it("should refuse a gate on a tool the sub-agent does not have, under the sub-agent's path", async () => {
    const r = await setup();
    expect(
      await refusedPaths(r, [sub("a", { toolNames: ["echo"], interruptOn: { echo: true, finish: true } })]),
    ).toEqual(["/subagents/0/interruptOn/finish"]);
  });

  it("should refuse a placeholder of a sub-agent's system prompt that the run's variables do not fill", async () => {
    const r = await setup();
    expect(
      await refusedPaths(r, [sub("a", { systemPrompt: "You research {{topic}} for {{client}}." })], {
        variables: { topic: "bees" },
      }),
    ).toEqual(["/subagents/0/systemPrompt"]);
  });

  it("should refuse an inline response format that is not a JSON Schema", async () => {
    const r = await setup();
    const paths = await refusedPaths(r, [sub("a", { responseFormat: { type: "no-such-type" } })]);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.every((p) => p.startsWith("/subagents/0/responseFormat"))).toBe(true);
  });

  it("should refuse a sub-agent's own provider settings under its path", async () => {
    const r = await setup();
    expect(await refusedPaths(r, [sub("a", { llmProvider: "nope" })])).toEqual(["/subagents/0/llmProvider"]);
    expect(await refusedPaths(r, [sub("a", { llmKwargs: { temperature: 9 } })])).toEqual([
      "/subagents/0/llmKwargs/temperature",
    ]);
  });

  it("should refuse an unknown stored skill of a sub-agent", async () => {
    const r = await setup();
    const paths = await refusedPaths(r, [sub("a", { skills: ["no-such-skill"] })]);
    expect(paths).toHaveLength(1);
    expect(paths[0]).toMatch(/^\/subagents\/0\/skills/);
  });

  it("should gather the problems of several sub-agents and nested ones in one refusal", async () => {
    const r = await setup();
    const paths = await refusedPaths(r, [
      sub("a", { strategy: "nope" }),
      sub("b", { subagents: [sub("c", { interruptOn: { ghost: true } })] }),
    ]);
    expect(paths).toEqual(["/subagents/0/strategy", "/subagents/1/subagents/0/interruptOn/ghost"]);
  });
});

/**
 * Runs a parent that calls the sub-agent `child` once (answering as `answer`), with `options`; returns what each saw
 * and the log.
 */
async function runWithChild(
  child: string,
  answer: (view: ScriptView) => ScriptedTurn,
  options: Record<string, unknown>,
) {
  const r = await setup();
  const seen: Record<string, ScriptView[]> = {};
  useScript(r.agents, "s", parentAndChild(child, answer, seen));
  const { log } = await runToEnd(r.agents, { userMessage: "?", llmProvider: "s", ...options });
  return { seen, log };
}

describe("what a prepared sub-agent runs with", () => {
  it("should show a sub-agent only its own tools, its rendered system prompt and the task it was given", async () => {
    const { seen, log } = await runWithChild("helper", () => ({ text: "helped" }), {
      toolNames: ["finish"],
      variables: { topic: "bees" },
      subagents: [sub("helper", { systemPrompt: "You are helper. Study {{topic}}.", toolNames: ["echo"] })],
    });
    const [view] = seen.helper;
    expect(view.tools.map((t) => t.name)).toEqual(["echo"]);
    expect(view.prompt[0].content).toContain("Study bees.");
    expect(JSON.stringify(view.prompt.at(-1))).toContain("do it");
    const parentTools = seen.parent[0].tools.map((t) => t.name);
    expect(parentTools).toEqual(expect.arrayContaining(["finish", "helper"]));
    expect(parentTools).not.toContain("echo");
    expect(ofType(log, "tool_result_step")[0]).toMatchObject({ tool: "helper", result: "helped", agent: null });
  });

  it("should offer the parent a sub-agent as a tool taking a task, described by its description", async () => {
    const { seen } = await runWithChild("helper", () => ({ text: "ok" }), { subagents: [sub("helper")] });
    const offered = seen.parent[0].tools.find((t) => t.name === "helper")!;
    expect(offered.description).toBe("The helper.");
    expect(Object.keys(offered.inputSchema.properties as object)).toContain("task");
  });

  it("should run a sub-agent on the parent's model unless it names its own provider", async () => {
    const r = await setup();
    const parentModel = useScript(
      r.agents,
      "p",
      parentAndChild("helper", () => ({ text: "from parent's model" })),
    );
    const own = useScript(r.agents, "own", [{ text: "from its own model" }]);
    const inherited = await runToEnd(r.agents, { userMessage: "?", llmProvider: "p", subagents: [sub("helper")] });
    expect(ofType(inherited.log, "tool_result_step")[0].result).toBe("from parent's model");
    expect(parentModel.seen).toHaveLength(3);
    const separate = await runToEnd(r.agents, {
      userMessage: "?",
      llmProvider: "p",
      subagents: [sub("helper", { llmProvider: "own" })],
    });
    expect(ofType(separate.log, "tool_result_step")[0].result).toBe("from its own model");
    expect(own.seen).toHaveLength(1);
  });

  it("should stop a sub-agent at its own recursion limit with an error result for the parent", async () => {
    const { log } = await runWithChild(
      "looper",
      () => ({ toolCalls: [{ toolName: "echo", input: { text: "again" } }] }),
      {
        subagents: [sub("looper", { toolNames: ["echo"], recursionLimit: 2 })],
      },
    );
    const looped = ofType(log, "tool_call_step").filter((e) => e.agent === "looper");
    expect(looped.length).toBeLessThanOrEqual(2);
    const [result] = ofType(log, "tool_result_step").filter((e) => e.tool === "looper");
    expect(result.isError).toBe(true);
    expect(ofType(log, "message_final")[0].text).toBe("parent done");
  });

  it("should give a sub-agent with askCaller the ask_caller tool", async () => {
    const { seen } = await runWithChild("asker", () => ({ text: "no need to ask" }), {
      subagents: [sub("asker", { askCaller: true })],
    });
    expect(seen.asker[0].tools.map((t) => t.name)).toEqual(["ask_caller"]);
  });
});
