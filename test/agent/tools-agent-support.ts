import { afterEach } from "vitest";
import type { ScriptedModel } from "../../src/agent/providers/scripted-model.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { agentTestApp, type Span } from "./fixtures.ts";

/** Polls `check` until it holds (at most 5 s). */
export async function until(check: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 5000; !(await check());) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A runtime over the agent test app per test (disposed after each): call the returned function to make it. */
export function agentRuntimePerTest(): (spans?: Span[]) => Promise<TestRuntime> {
  let rt: TestRuntime | undefined;
  afterEach(async () => {
    await rt?.dispose();
    rt = undefined;
  });
  return async (spans: Span[] = []) => (rt = await testRuntime({ app: agentTestApp(spans) }));
}

/** The tool results the model was shown in its `call`-th call (0-based), by tool name. */
export function resultsSeen(
  model: ScriptedModel,
  call: number,
): { tool: string; output: { type: string; value: unknown } }[] {
  return model.seen[call].prompt.flatMap((m) =>
    m.role === "tool"
      ? m.content.flatMap((p) =>
          p.type === "tool-result" ? [{ tool: p.toolName, output: p.output as { type: string; value: unknown } }] : [],
        )
      : [],
  );
}
