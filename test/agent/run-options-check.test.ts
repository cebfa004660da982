import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { defineTool } from "../../src/index.ts";
import { Agent } from "../../src/agent/agent.ts";
import { isToolDefinition, RUN_OPTION_KEYS, storableOptions } from "../../src/agent/run-options.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

const live = () =>
  defineTool({
    name: "local_clock",
    description: "Reads the local clock.",
    parameters: { type: "object", properties: {}, additionalProperties: false },
    execute: () => "noon",
  });

/** The issue paths and message a start was refused with. */
async function refusal(
  options: Record<string, unknown>,
  agent?: string,
): Promise<{ paths: string[]; message: string }> {
  rt ??= await testRuntime();
  try {
    await rt.agents.start({ agent, options: { userMessage: "?", ...options } as never, caller: as("USER") });
  } catch (e) {
    const err = e as { code: string; message: string; issues: { path: string }[] };
    expect(err.code).toBe("BAD_USER_INPUT");
    return { paths: err.issues.map((i) => i.path), message: err.message };
  }
  throw new Error("expected the start to be refused");
}

describe("the run options every agent takes", () => {
  it("should name each option the seed's run takes, camelCased", () => {
    expect(RUN_OPTION_KEYS).toEqual(
      expect.arrayContaining([
        "userMessage",
        "systemMessage",
        "toolNames",
        "presets",
        "subagents",
        "variables",
        "responseFormat",
        "threadId",
        "resume",
        "llmProvider",
        "llmKwargs",
      ]),
    );
    expect(new Set(RUN_OPTION_KEYS).size).toBe(RUN_OPTION_KEYS.length);
  });

  it("should refuse every key that is not an option of the agent, naming each in the message", async () => {
    const { paths, message } = await refusal({ temprature: 1, colour: "red" });
    expect(paths).toEqual(["/temprature", "/colour"]);
    expect(message).toContain('"temprature", "colour"');
    expect(await rt!.db.agentRun.count()).toBe(0);
  });

  it("should refuse a strategy, checkpoint provider or store provider that is not a name", async () => {
    expect((await refusal({ strategy: 3, checkpointProvider: {}, storeProvider: ["x"] })).paths).toEqual([
      "/strategy",
      "/checkpointProvider",
      "/storeProvider",
    ]);
  });

  it("should refuse unknown names of a checkpoint or store provider, listing the known ones", async () => {
    const { paths, message } = await refusal({ checkpointProvider: "nope", storeProvider: "nada" });
    expect(paths).toEqual(["/checkpointProvider", "/storeProvider"]);
    expect(message).toMatch(/no checkpointProvider named "nope" \(known: [^)]+\)/);
  });

  it("should refuse tools that are not live definitions, at each index", async () => {
    expect((await refusal({ tools: [live(), { name: "fake", execute: () => 1 }, "echo"] })).paths).toEqual([
      "/tools/1",
      "/tools/2",
    ]);
    expect((await refusal({ tools: { name: "x" } })).paths).toEqual(["/tools"]);
  });

  it("should report unknown keys and bad names together", async () => {
    expect((await refusal({ nope: 1, strategy: "missing" })).paths).toEqual(["/nope", "/strategy"]);
  });

  it("should accept an agent's own ToolInput fields and its declared extras besides the run options", async () => {
    const app = new App();
    app.agent(
      class Custom extends Agent {
        static toolName = "custom";
        static toolDescription = "A custom agent.";
        static ToolInput = z.object({ topic: z.string() });
        static extrasKeys = ["tenant"];
        async run() {
          return "ok";
        }
      },
    );
    rt = await testRuntime({ app });
    const started = await rt.agents.start({
      agent: "custom",
      options: { userMessage: "?", topic: "bees", tenant: "t1" } as never,
      caller: as("USER"),
    });
    expect(started.runId).toBeTruthy();
    const { paths, message } = await refusal({ topic: "bees", region: "eu" }, "custom");
    expect(paths).toEqual(["/region"]);
    expect(message).toContain("its extra keys are tenant");
  });
});

describe("isToolDefinition and storableOptions", () => {
  it("should recognise only what defineTool returned", () => {
    expect(isToolDefinition(live())).toBe(true);
    expect(isToolDefinition({ ...live() })).toBe(false);
    expect(isToolDefinition(Object.freeze({ name: "x" }))).toBe(false);
    expect(isToolDefinition(null)).toBe(false);
  });

  it("should store the options without their live tools, and leave options without tools as they are", () => {
    const options = { userMessage: "hi", tools: [live()] };
    expect(storableOptions(options as never)).toEqual({ userMessage: "hi" });
    const plain = { userMessage: "hi" };
    expect(storableOptions(plain)).toBe(plain);
  });
});
