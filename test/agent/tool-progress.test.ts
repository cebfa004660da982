import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { until } from "../graphql/support.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { ofType, runToEnd, types, useScript } from "./support.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

/** A tool that reports one update, waits until it is stored, and answers. */
function progressApp(): App {
  const app = new App();
  for (const tier of ["read", "secret"] as const)
    app.tool(
      {
        name: tier === "read" ? "index_files" : "vault_scan",
        description: "Indexes files.",
        input: z.object({ dir: z.string() }),
        tier,
      },
      async ({ dir }, ctx) => {
        ctx.onUpdate({ message: `indexing ${dir}`, progress: 3, total: 10, details: { dir } });
        await until("the update to be stored", async () =>
          (await rt!.runs.events({ runId: ctx.runId }, 0)).some((e) => e.type === "RUN_PROGRESS"),
        );
        return { files: 10 };
      },
    );
  return app;
}

describe("on_update reaches the agent stream as a ToolProgressStep", () => {
  it("should stream the tool's partial update between the call's ToolCallStep and its ToolResultStep, with the call's callId", async () => {
    rt = await testRuntime({ app: progressApp(), config: { demo: false } });
    useScript(rt.agents, "s", [
      { toolCalls: [{ toolName: "index_files", input: { dir: "src" } }] },
      { text: "Indexed." },
    ]);
    const { log } = await runToEnd(rt.agents, {
      userMessage: "index src",
      toolNames: ["index_files"],
      llmProvider: "s",
    });
    expect(types(log).slice(0, 3)).toEqual(["tool_call_step", "tool_progress_step", "tool_result_step"]);
    const [call] = ofType(log, "tool_call_step");
    const [step] = ofType(log, "tool_progress_step");
    const toolRun = (await rt.runs.list({ tool: "index_files" }, 1))[0];
    expect(step).toMatchObject({
      tool: "index_files",
      callId: call.callId,
      toolRunId: toolRun.id,
      message: "indexing src",
      progress: 3,
      total: 10,
      details: { dir: "src" },
      final: false,
    });
  });

  it("should redact a secret-tier tool's update in the agent stream as in its run log", async () => {
    rt = await testRuntime({ app: progressApp(), config: { demo: false } });
    useScript(rt.agents, "s", [
      { toolCalls: [{ toolName: "vault_scan", input: { dir: "private-dir" } }] },
      { text: "Done." },
    ]);
    const { log } = await runToEnd(
      rt.agents,
      { userMessage: "scan", toolNames: ["vault_scan"], llmProvider: "s" },
      as("ADMIN"),
    );
    const [step] = ofType(log, "tool_progress_step");
    expect(step).toMatchObject({
      tool: "vault_scan",
      message: "[redacted]",
      details: "[redacted]",
      progress: 3,
      total: 10,
    });
    expect(JSON.stringify(log)).not.toContain("private-dir");
  });
});
