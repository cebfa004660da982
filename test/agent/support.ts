import type { AgentRunOptions } from "../../src/agent/agent.ts";
import type { AgentService, StartedRun } from "../../src/agent/agent-service.ts";
import type { AgentLogEntry } from "../../src/agent/events.ts";
import { ScriptedModel, type Script } from "../../src/agent/providers/scripted-model.ts";
import type { App } from "../../src/app.ts";
import type { Caller } from "../../src/auth/roles.ts";
import { afterEach } from "vitest";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { agentTestApp } from "./fixtures.ts";

/**
 * Registers a scripted provider named `name` whose model plays `script` (one shared
 * model, so a resumed run continues the same script). Returns the model, whose `seen`
 * lists what each call was shown.
 */
export function useScript(agents: AgentService, name: string, script: Script, chunkDelayMs = 0): ScriptedModel {
  const model = new ScriptedModel(script, { modelId: `${name}-model`, chunkDelayMs });
  agents.providers.register({ name, description: "test script", configured: () => true, create: () => model });
  return model;
}

/**
 * Starts a run and collects its log (the terminal or failure last): all of it, or after the SuspendedFinal a joined
 * continuation follows.
 */
export async function runToEnd(
  agents: AgentService,
  options: AgentRunOptions,
  caller: Caller = as("USER"),
  agent?: string,
): Promise<{ started: StartedRun; log: AgentLogEntry[] }> {
  const started = await agents.start({ agent, options, caller });
  const log: AgentLogEntry[] = [];
  const controller = new AbortController();
  for await (const e of agents.events(started.runId, started.afterSeq ?? 0, controller.signal)) log.push(e);
  return { started, log };
}

/** The `type`s of a log, for exact-sequence assertions. */
export const types = (log: { type: string }[]) => log.map((e) => e.type);

/** Entries of one type. */
export function ofType<T extends AgentLogEntry["type"]>(
  log: AgentLogEntry[],
  type: T,
): Extract<AgentLogEntry, { type: T }>[] {
  return log.filter((e): e is Extract<AgentLogEntry, { type: T }> => e.type === type);
}

/**
 * Runtimes over one database, as server instances: `first()` creates it, `another(of)`
 * joins it. `disposeAll()` (afterEach) closes the others before the first, which drops it.
 */
export function sharedRuntimes() {
  const runtimes: TestRuntime[] = [];
  const add = (r: TestRuntime) => (runtimes.push(r), r);
  return {
    runtimes,
    first: async () => add(await testRuntime({ app: agentTestApp() })),
    another: async (of: TestRuntime) =>
      add(await testRuntime({ app: agentTestApp(), databaseUrl: of.config.databaseUrl })),
    async disposeAll() {
      for (const r of runtimes.splice(0).reverse()) await r.dispose();
    },
  };
}

/**
 * A runtime on the agent test app per test: `setup(register?)` creates it, `register` adding to the
 * app first, and it is disposed after each test.
 */
export function agentRuntimePerTest(): (register?: (app: App) => void) => Promise<TestRuntime> {
  let rt: TestRuntime | undefined;
  afterEach(async () => {
    await rt?.dispose();
    rt = undefined;
  });
  return async (register = () => {}) => {
    const app = agentTestApp();
    register(app);
    return (rt = await testRuntime({ app }));
  };
}
