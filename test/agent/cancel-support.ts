import { z } from "zod";
import type { ScriptView, ScriptedTurn } from "../../src/agent/providers/scripted-model.ts";
import { sleep } from "../../src/dispatch/retry-loop.ts";
import type { TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";
import { agentTestApp } from "./fixtures.ts";

/** When each call of `wait_8s` started and when its signal fired (ms, performance.now). */
export interface Calls {
  started: number[];
  aborted: number[];
}

/** The agent test app and `wait_8s`: a tool that waits 8 s unless its signal aborts (it honours `ctx.signal`). */
export function cancelApp(calls: Calls) {
  const app = agentTestApp();
  app.tool({ name: "wait_8s", description: "Waits 8 s unless aborted.", input: z.object({}) }, async (_input, ctx) => {
    calls.started.push(performance.now());
    ctx.signal.addEventListener("abort", () => calls.aborted.push(performance.now()), { once: true });
    await sleep(8000, ctx.signal);
    return "waited 8 s";
  });
  return app;
}

/** Calls `wait_8s` once, then answers (a run that is not cancelled would end SUCCEEDED). */
export const waitThenAnswer = (v: ScriptView): ScriptedTurn =>
  v.prompt.at(-1)?.role === "tool" ? { text: "done" } : { toolCalls: [{ toolName: "wait_8s", input: {} }] };

export function toolRunsOf(r: TestRuntime, tool = "wait_8s") {
  return r.runs.list({ tool }, 10);
}

/** Waits until `n` calls of `wait_8s` are in flight (started, their runs RUNNING). */
export async function inFlight(r: TestRuntime, calls: Calls, n = 1): Promise<void> {
  await until(
    `${n} wait_8s call(s) in flight`,
    async () => calls.started.length >= n && (await toolRunsOf(r)).filter((t) => t.status === "RUNNING").length >= n,
  );
}
