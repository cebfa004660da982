import { afterEach, expect, it } from "vitest";
import type { AgentLogEntry } from "../../src/agent/events.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { agentTestApp } from "../agent/fixtures.ts";
import { useScript } from "../agent/support.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

it("should end a run whose event could not be stored with a failure right after the last stored event, so joiners finish instead of waiting for a gap", async () => {
  rt = await testRuntime({ app: agentTestApp() });
  useScript(rt.agents, "s", () => ({ text: "one two three four" }));
  const store = rt.agents.store;
  const append = store.appendEvent.bind(store);
  let n = 0;
  store.appendEvent = async (e) => {
    if (++n === 3) throw new Error("database unavailable");
    return append(e);
  };
  const started = await rt.agents.start({ options: { userMessage: "count", llmProvider: "s" }, caller: as("USER") });
  const log: AgentLogEntry[] = [];
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 8000);
  for await (const e of rt.agents.events(started.runId, 0, controller.signal)) log.push(e);
  clearTimeout(timer);
  expect(controller.signal.aborted).toBe(false);
  expect(log.map((e) => [e.type, e.seq])).toEqual([
    ["message_delta", 1],
    ["message_delta", 2],
    ["run_failed", 3],
  ]);
  expect(log.at(-1)).toMatchObject({ kind: "INTERNAL" });
  expect((await store.get(started.runId))!.status).toBe("FAILED");
});
