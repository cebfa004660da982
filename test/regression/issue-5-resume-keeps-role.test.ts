import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testRuntime, as, type TestRuntime } from "../helpers/runtime.ts";
import { ofType, runToEnd, types, useScript } from "../agent/support.ts";

describe("resuming another caller's paused agent run", () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await testRuntime();
  });
  afterEach(() => rt.dispose());

  it("should keep the paused run's role: an ADMIN approving a USER's call does not let it run a fenced tool", async () => {
    useScript(rt.agents, "s", [{ toolCalls: [{ toolName: "admin_stats", input: {} }] }, { text: "Done." }]);
    const user = as("USER");
    const first = await runToEnd(
      rt.agents,
      { userMessage: "stats please", toolNames: ["admin_stats"], interruptOn: { admin_stats: true }, llmProvider: "s" },
      user,
    );
    expect(types(first.log).at(-1)).toBe("interrupt_final");

    const resumed = await runToEnd(
      rt.agents,
      { threadId: first.started.threadId, resume: { decisions: [{ type: "approve" }] } },
      as("ADMIN"),
    );
    const results = ofType(resumed.log, "tool_result_step");
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ tool: "admin_stats", isError: true });
    expect(JSON.stringify(results[0].result)).toContain("PERMISSION_DENIED");
    const run = await rt.db.run.findFirst({ where: { tool: "admin_stats" } });
    expect(run).toMatchObject({ status: "FAILED", errorKind: "PERMISSION_DENIED", callerRole: "USER" });
  });
});
