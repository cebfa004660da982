import { describe, expect, it } from "vitest";
import { z } from "zod";
import { RUN_OPTION_KEYS } from "../../src/agent/run-options.ts";
import { agentInputSchema } from "../../src/agent/agent-class.ts";
import { ToolsAgent } from "../../src/agent/tools-agent/tools-agent.ts";
import { RUN_INPUT_FIELDS, runInput, studioPlan, type ControlValues } from "../../src/dashboard/api/agent-input.ts";
import { TripAgent } from "./modules/trip-agent.ts";

const controls: ControlValues = { toolNames: ["calculate", "kv_put"], gated: ["kv_put"], systemMessage: "Be brief." };
const info = (cls: { toolName: string; specRunnable: boolean } & Parameters<typeof agentInputSchema>[0]) => ({
  name: cls.toolName,
  specRunnable: cls.specRunnable,
  inputSchema: agentInputSchema(cls),
});

describe("what the Studio offers for an agent, from its declaration", () => {
  it("should name every run option a JSON caller may send (all of them but the in-process live tools)", () => {
    expect([...RUN_INPUT_FIELDS].sort()).toEqual(RUN_OPTION_KEYS.filter((k) => k !== "tools").sort());
  });

  it("should offer the tools agent its tool picks, approval gates, system message and message box, and draw the rest of its input as a form", () => {
    const plan = studioPlan(info(ToolsAgent));
    expect(plan.message).toBe(true);
    expect(plan.controls).toEqual({ toolNames: true, interruptOn: true, systemMessage: true });
    const drawn = Object.keys(plan.form!.properties as object);
    expect(drawn).toContain("askCaller");
    expect(drawn).toContain("responseFormat");
    for (const kept of [
      "toolNames",
      "interruptOn",
      "systemMessage",
      "userMessage",
      "threadId",
      "resume",
      "resumeCheckpointId",
    ])
      expect(drawn).not.toContain(kept);
  });

  it("should offer an agent that is not specRunnable no control, only its own input, even when its input names a composable field", () => {
    const plan = studioPlan(info(TripAgent));
    expect(plan).toMatchObject({
      message: false,
      controls: { toolNames: false, interruptOn: false, systemMessage: false },
      formFields: 2,
    });
    expect(plan.form).toMatchObject({
      properties: { city: { type: "string" }, nights: { type: "integer" } },
      required: ["city", "nights"],
    });
    const withTools = studioPlan({
      specRunnable: false,
      inputSchema: z.toJSONSchema(z.object({ toolNames: z.array(z.string()), userMessage: z.string() })) as Record<
        string,
        unknown
      >,
    });
    expect(withTools.controls.toolNames).toBe(false);
    expect(withTools.message).toBe(true);
    expect(Object.keys(withTools.form!.properties as object)).toEqual(["toolNames"]);
  });

  it("should not offer a specRunnable agent a control whose field its input does not advertise", () => {
    const plan = studioPlan({
      specRunnable: true,
      inputSchema: z.toJSONSchema(
        z.object({ toolNames: z.array(z.string()).optional(), userMessage: z.string() }),
      ) as Record<string, unknown>,
    });
    expect(plan.controls).toEqual({ toolNames: true, interruptOn: false, systemMessage: false });
    expect(plan.form).toBeNull();
  });

  it("should start the second agent with its own fields under extra and nothing it does not declare", () => {
    const agent = info(TripAgent);
    expect(runInput(agent, studioPlan(agent), controls, "ignored", { city: "Lyon", nights: 3 })).toEqual({
      agent: "trip_planner",
      extra: { city: "Lyon", nights: 3 },
    });
  });

  it("should start the tools agent with its message, its controls, and a form's run option by its own name", () => {
    const agent = info(ToolsAgent);
    expect(
      runInput(agent, studioPlan(agent), controls, " What is 6 times 7? ", {
        recursionLimit: 3,
        askCaller: false,
        stray: 1,
      }),
    ).toEqual({
      agent: "tools_agent",
      userMessage: "What is 6 times 7?",
      toolNames: ["calculate", "kv_put"],
      interruptOn: { kv_put: { allowedDecisions: ["approve", "edit", "reject"] } },
      systemMessage: "Be brief.",
      recursionLimit: 3,
      extra: { askCaller: false },
    });
  });
});
