import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { App } from "../../../src/app.ts";
import { until } from "../../graphql/support.ts";
import { gqlClient } from "../../helpers/gql.ts";
import { redisTestUrl } from "../../helpers/databases.ts";
import { as, testRuntime, type TestRuntime } from "../../helpers/runtime.ts";
import { EVERYTHING, everythingPids, FILESYSTEM } from "./support.ts";

/**
 * The built-in `mcp` kind end to end: stored connectors, surface entries, the connection manager, two runtimes over one
 * database.
 */
let a: TestRuntime;
let b: TestRuntime;
let dir: string;
const admin = as("ADMIN");

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tai42-mcp-e2e-"));
  a = await testRuntime({ app: new App(), config: { redisUrl: redisTestUrl() } });
  b = await testRuntime({ app: new App(), config: { redisUrl: redisTestUrl() }, databaseUrl: a.config.databaseUrl });
  await a.connectors.put(admin, {
    name: "every",
    kind: "mcp",
    settings: { command: process.execPath, args: [EVERYTHING, "stdio"] },
    tools: {
      "trigger-long-running-operation": {
        timeoutSeconds: 2,
        retry: { maxAttempts: 2, idempotent: true, backoff: { initialSeconds: 0.05, capSeconds: 0.05 } },
      },
    },
  });
  await a.connectors.put(admin, {
    name: "fs",
    kind: "mcp",
    settings: { command: process.execPath, args: [FILESYSTEM, dir] },
  });
  await until(
    "the second runtime serves the connectors' tools",
    () => b.surface.resolve("every_echo") !== undefined && b.surface.resolve("fs_write_file") !== undefined,
    20_000,
  );
}, 120_000);

afterAll(async () => {
  await b?.dispose();
  await a?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const dispatch = (rt: TestRuntime, tool: string, input: Record<string, unknown>, role: "READER" | "USER" = "USER") =>
  rt.dispatcher.run({ tool, input, caller: as(role), door: "runtime" });

describe("the mcp kind through tai42's runtime", () => {
  it("serves the upstream's tools with their annotations and proposed tiers", async () => {
    const every = (await a.connectors.get(admin, "every"))!;
    expect(every.tools.find((t) => t.name === "echo")).toMatchObject({
      surfaceName: "every_echo",
      tier: "read",
      annotations: { readOnlyHint: true },
    });
    expect(every.refused).toEqual([{ name: "simulate-research-query", reason: expect.stringContaining("task-based") }]);
    expect(a.surface.resolve("fs_write_file")).toMatchObject({ origin: "CONNECTOR", tier: "write" });
  });

  it("runs a read tool for a READER and refuses a READER a write tool without calling the upstream", async () => {
    expect(await dispatch(a, "every_echo", { message: "hi" }, "READER")).toMatchObject({
      status: "SUCCEEDED",
      content: [{ type: "text", text: "Echo: hi" }],
    });
    const file = join(dir, "refused.txt");
    const refused = await dispatch(a, "fs_write_file", { path: file, content: "x" }, "READER");
    expect(refused).toMatchObject({ status: "FAILED", errorKind: "PERMISSION_DENIED" });
    expect(existsSync(file)).toBe(false);
    const wrote = await dispatch(a, "fs_write_file", { path: join(dir, "ok.txt"), content: "x" }, "USER");
    expect(wrote.status).toBe("SUCCEEDED");
    expect(existsSync(join(dir, "ok.txt"))).toBe(true);
  });

  it("stores the upstream's progress as RUN_PROGRESS events", async () => {
    const run = await dispatch(a, "every_trigger-long-running-operation", { duration: 0.9, steps: 3 });
    expect(run.status).toBe("SUCCEEDED");
    const progress = (await a.runs.events({ runId: run.id }, 0)).filter((e) => e.type === "RUN_PROGRESS");
    expect(progress.length).toBeGreaterThanOrEqual(1);
  });

  it("fails a hung upstream call TIMEOUT at the ADMIN's timeoutSeconds, retried once under the ADMIN's idempotency claim", async () => {
    const started = Date.now();
    const run = await dispatch(a, "every_trigger-long-running-operation", { duration: 30, steps: 1 });
    expect(run).toMatchObject({ status: "FAILED", errorKind: "TIMEOUT" });
    expect(run.attempts.map((t) => t.errorKind)).toEqual(["TIMEOUT", "TIMEOUT"]);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("cancels a run mid-call", async () => {
    let runId = "";
    const done = a.dispatcher.run({
      tool: "every_trigger-long-running-operation",
      input: { duration: 1.9, steps: 19 },
      caller: as("USER"),
      door: "runtime",
      onRun: (id) => (runId = id),
    });
    await until("the run is running", async () => runId !== "" && (await a.runs.get(runId))?.status === "RUNNING");
    await a.dispatcher.cancel(runId);
    expect((await done).status).toBe("CANCELLED");
  });

  it("parks a run on the upstream's question and resumes it to SUCCEEDED when a second runtime over the same database answers", async () => {
    const parked = await dispatch(a, "every_trigger-elicitation-request", {});
    expect(parked.status).toBe("PARKED");
    const [question] = await a.interactions.forRun(parked.id);
    expect(question).toMatchObject({
      question: "Please provide inputs for the following fields:",
      answerFormat: expect.objectContaining({ required: ["name"] }),
    });
    const resumed = await b.interactions.answer(question!.id, { name: "Ada Lovelace" }, as("USER"));
    expect(resumed.status).toBe("SUCCEEDED");
    expect(resumed.content.map((c) => c.text).join("\n")).toMatch(/- Name: Ada Lovelace/);
  });

  it("parks a GraphQL dispatch on the upstream's question; answerInteraction over GraphQL on the second instance resumes it", async () => {
    const key = await a.keys.create("elicit", "USER");
    const onA = gqlClient(a);
    const onB = gqlClient(b);
    const dispatched = await onA(
      `mutation { dispatch(input: { tool: "every_trigger-elicitation-request", input: {} }) { id status interactions { id question } } }`,
      {},
      key,
    );
    expect(dispatched.errors).toBeUndefined();
    const parked = dispatched.data!.dispatch;
    expect(parked).toMatchObject({
      status: "PARKED",
      interactions: [{ question: expect.stringContaining("Please provide") }],
    });
    const answered = await onB(
      `mutation($id: ID!, $a: JSON!) { answerInteraction(id: $id, answer: $a) { id status content { text } } }`,
      { id: parked.interactions[0].id, a: { name: "Grace Hopper" } },
      key,
    );
    expect(answered.errors).toBeUndefined();
    expect(answered.data!.answerInteraction).toMatchObject({ id: parked.id, status: "SUCCEEDED" });
    expect(JSON.stringify(answered.data!.answerInteraction.content)).toMatch(/- Name: Grace Hopper/);
  });

  // The second runtime opens its own connection through the manager (the put's instance adopted the put's probe, whose
  // reconnect test/connectors/connector-lifecycle.test.ts covers).
  it("reconnects after the upstream process is killed", async () => {
    expect((await dispatch(b, "every_echo", { message: "before" })).status).toBe("SUCCEEDED");
    expect(b.connections.health("every").state).toBe("CONNECTED");
    const children = everythingPids();
    expect(children.length).toBeGreaterThan(0);
    for (const pid of children) process.kill(pid, "SIGKILL");
    await until("the connection is reported down", () => b.connections.health("every").state !== "CONNECTED", 10_000);
    await until("the connection is back", () => b.connections.health("every").state === "CONNECTED", 20_000);
    expect(await dispatch(b, "every_echo", { message: "after" })).toMatchObject({
      status: "SUCCEEDED",
      content: [{ text: "Echo: after" }],
    });
  }, 40_000);
});
