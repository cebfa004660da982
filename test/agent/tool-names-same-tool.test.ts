import { describe, expect, it } from "vitest";
import { as } from "../helpers/runtime.ts";
import { agentRuntimePerTest, ofType, runToEnd, useScript } from "./support.ts";

const setup = agentRuntimePerTest();

describe("toolNames: the same name is the same tool (seed 002)", () => {
  it("should offer a tool named twice in toolNames once, and run the call", async () => {
    const r = await setup();
    const model = useScript(r.agents, "s", [
      { toolCalls: [{ toolName: "echo", input: { text: "hi" } }] },
      { text: "done" },
    ]);
    const { log } = await runToEnd(r.agents, { userMessage: "?", llmProvider: "s", toolNames: ["echo", "echo"] });
    expect(model.seen[0].tools?.filter((t) => t.name === "echo")).toHaveLength(1);
    expect(ofType(log, "tool_result_step")).toEqual([
      expect.objectContaining({ tool: "echo", result: "hi", isError: false }),
    ]);
    expect(ofType(log, "message_final")[0].text).toBe("done");
  });

  it("should offer a sub-agent's tool named twice once", async () => {
    const r = await setup();
    const model = useScript(r.agents, "s", (view) =>
      (view.prompt[0].content as string).startsWith("You help")
        ? { text: "helped" }
        : view.prompt.at(-1)?.role === "tool"
          ? { text: "done" }
          : { toolCalls: [{ toolName: "helper", input: { task: "t" } }] },
    );
    const { log } = await runToEnd(r.agents, {
      userMessage: "?",
      llmProvider: "s",
      subagents: [{ name: "helper", description: "Helps", systemPrompt: "You help.", toolNames: ["echo", "echo"] }],
    });
    const sub = model.seen.find((s) => (s.prompt[0].content as string).startsWith("You help"))!;
    expect(sub.tools?.map((t) => t.name)).toEqual(["echo"]);
    expect(ofType(log, "message_final")[0].text).toBe("done");
  });

  it("should still refuse two different tools of one name (a tool and an inline preset), and store nothing", async () => {
    const r = await setup();
    await expect(
      r.agents.start({
        options: {
          userMessage: "?",
          toolNames: ["echo"],
          presets: [{ name: "echo", description: "d", baseTool: "echo", fixedKwargs: { text: "x" } }],
        },
        caller: as("USER"),
      }),
    ).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [
        expect.objectContaining({ path: "/toolNames", message: expect.stringContaining('"echo" is used twice') }),
      ],
    });
    expect(await r.db.agentRun.count()).toBe(0);
  });
});
