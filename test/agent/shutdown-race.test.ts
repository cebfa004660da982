import { afterEach, describe, expect, it } from "vitest";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { cancelApp, toolRunsOf, waitThenAnswer, type Calls } from "./cancel-support.ts";
import { useScript } from "./support.ts";

/**
 * A start admitted just before a shutdown began (docs/agent-stream.md §4.2): its run is
 * launched after the drain started, and is drained and cancelled with the rest at the one
 * deadline, not left running past a runtime that closed. Runs on the database TAI_TEST_DB selects.
 */

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

describe("a start that races the drain", () => {
  it("should be waited for and cancelled at the grace deadline with its tool, the shutdown ending within grace + 1 s", async () => {
    const calls: Calls = { started: [], aborted: [] };
    const r = (rt = await testRuntime({ app: cancelApp(calls), config: { shutdownGraceSeconds: 2 } }));
    useScript(r.agents, "s", waitThenAnswer);
    // Admitted now (the server is not closing yet); its run is launched once the drain has begun.
    const start = r.agents.start({
      options: { userMessage: "wait", llmProvider: "s", toolNames: ["wait_8s"] },
      caller: as("USER"),
    });
    const t0 = performance.now();
    const drained = r.drain();
    const { runId } = await start;
    await drained;
    const took = performance.now() - t0;
    expect(took).toBeGreaterThanOrEqual(1900);
    expect(took).toBeLessThan(3000);
    expect(calls.aborted).toHaveLength(1);
    expect(await r.agents.store.get(runId)).toMatchObject({
      status: "CANCELLED",
      final: { kind: "CANCELLED", message: "cancelled by server shutdown" },
    });
    expect((await toolRunsOf(r)).map((t) => t.status)).toEqual(["CANCELLED"]);
  });
});
