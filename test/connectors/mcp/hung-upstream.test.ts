import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { App } from "../../../src/app.ts";
import { until } from "../../graphql/support.ts";
import { as, testRuntime, type TestRuntime } from "../../helpers/runtime.ts";
import { EVERYTHING, everythingPids } from "./support.ts";

/**
 * A truly hung upstream: the stdio server-everything process stopped (SIGSTOP) with the connection open, so nothing
 * answers and nothing closes. Its runs end TIMEOUT at the ADMIN's timeoutSeconds, retried only under an idempotency
 * claim; once the process continues (SIGCONT) the same connection serves again.
 */
let rt: TestRuntime;
const stopped = new Set<number>();

beforeAll(async () => {
  rt = await testRuntime({ app: new App() });
  await rt.connectors.put(as("ADMIN"), {
    name: "hang",
    kind: "mcp",
    settings: { command: process.execPath, args: [EVERYTHING, "stdio"] },
    tools: {
      "trigger-long-running-operation": { timeoutSeconds: 3 },
      "get-sum": {
        timeoutSeconds: 1,
        retry: { maxAttempts: 2, idempotent: true, backoff: { initialSeconds: 0.05, capSeconds: 0.05 } },
      },
    },
  });
}, 120_000);

afterEach(() => {
  for (const pid of stopped) process.kill(pid, "SIGCONT");
  stopped.clear();
});

afterAll(async () => {
  await rt?.dispose();
});

/** Stops the connector's upstream process (one stdio connection here). */
function hang(): void {
  const pids = everythingPids();
  expect(pids).toHaveLength(1);
  process.kill(pids[0]!, "SIGSTOP");
  stopped.add(pids[0]!);
}

function resume(): void {
  for (const pid of stopped) process.kill(pid, "SIGCONT");
  stopped.clear();
}

const dispatch = (tool: string, input: Record<string, unknown>, onRun?: (id: string) => void) =>
  rt.dispatcher.run({ tool, input, caller: as("USER"), door: "runtime", ...(onRun ? { onRun } : {}) });

describe("a hung MCP upstream", () => {
  it("should end a call whose upstream stops mid-call TIMEOUT after one attempt without a policy, and serve again once it continues", async () => {
    let runId = "";
    const started = Date.now();
    // 2 s of work in 8 steps: well inside the 3 s timeout while the process runs.
    const done = dispatch("hang_trigger-long-running-operation", { duration: 2, steps: 8 }, (id) => (runId = id));
    await until(
      "the upstream reports progress",
      async () => runId !== "" && (await rt.runs.events({ runId }, 0)).some((e) => e.type === "RUN_PROGRESS"),
      10_000,
    );
    hang();
    const run = await done;
    expect(run).toMatchObject({ status: "FAILED", errorKind: "TIMEOUT", retryPolicy: null });
    expect(run.attempts.map((a) => a.errorKind)).toEqual(["TIMEOUT"]);
    expect(Date.now() - started).toBeLessThan(10_000);
    resume();
    expect(await dispatch("hang_echo", { message: "awake" })).toMatchObject({
      status: "SUCCEEDED",
      content: [{ type: "text", text: "Echo: awake" }],
    });
  }, 30_000);

  it("should retry a call to the stopped upstream under the ADMIN's idempotency claim, each attempt TIMEOUT, and answer it once it continues", async () => {
    expect((await dispatch("hang_get-sum", { a: 1, b: 2 })).status).toBe("SUCCEEDED");
    hang();
    const started = Date.now();
    const run = await dispatch("hang_get-sum", { a: 2, b: 3 });
    expect(run).toMatchObject({ status: "FAILED", errorKind: "TIMEOUT" });
    expect(run.attempts.map((a) => a.errorKind)).toEqual(["TIMEOUT", "TIMEOUT"]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(rt.connections.health("hang").state).toBe("CONNECTED");
    resume();
    expect(await dispatch("hang_get-sum", { a: 20, b: 22 })).toMatchObject({
      status: "SUCCEEDED",
      content: [{ type: "text", text: expect.stringContaining("42") }],
    });
  }, 30_000);
});
