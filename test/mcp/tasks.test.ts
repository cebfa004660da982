import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  type CallToolResult,
  type CreateTaskResult,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { ToolError } from "../../src/errors.ts";
import { park } from "../../src/index.ts";
import { until } from "../graphql/support.ts";
import { freshDatabase, testDbKind } from "../helpers/databases.ts";
import { gqlClient } from "../helpers/gql.ts";
import { connect, startServer, textOf, type McpTestServer } from "./support.ts";

/**
 * MCP tasks (docs/mcp.md §5): a task-augmented `tools/call` is a background run answered at once as its task, and
 * `tasks/get|result|list|cancel` read and cancel the run, driven by the SDK's own Client over Streamable HTTP.
 */
const LEAKED = "tok-task-4d1f9a0c7e";
const release = { open: false };

function app(): App {
  const a = new App();
  a.tool(
    { name: "note", description: "Returns its text.", input: z.object({ text: z.string() }), tier: "write" },
    async ({ text }) => ({ text }),
  );
  a.tool({ name: "held", description: "Waits for a release.", input: z.object({}) }, async (_i, ctx) => {
    while (!release.open && !ctx.signal.aborted) await new Promise((r) => setTimeout(r, 10));
    return { released: true };
  });
  a.tool({ name: "leaky", description: "Fails naming a value it redacted.", input: z.object({}) }, async (_i, ctx) => {
    ctx.redact(LEAKED);
    throw new ToolError(`the upstream refused ${LEAKED}`, { kind: "PERMISSION_DENIED" });
  });
  a.tool(
    {
      name: "approve",
      description: "Asks a person to approve an amount.",
      input: z.object({ amount: z.number() }),
      tier: "write",
      pauses: true,
      resume: (state, answers) => ({
        ...(state as object),
        approved: (Object.values(answers)[0] as { ok: boolean }).ok,
      }),
    },
    ({ amount }) =>
      park({
        interactions: [
          {
            question: `Approve ${amount}?`,
            answerFormat: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
          },
        ],
        state: { amount },
      }),
  );
  a.tool(
    { name: "vault", description: "A secret-tier tool.", input: z.object({ pin: z.string() }), tier: "secret" },
    async () => ({ ok: true }),
  );
  return a;
}

const db = await freshDatabase(testDbKind());
let server: McpTestServer;
let alice: string;
let bob: string;
const clients: Client[] = [];

async function start(): Promise<McpTestServer> {
  return startServer({ app: app(), databaseUrl: db.url, env: { TAI_ANONYMOUS_ROLE: "NONE" }, config: { demo: false } });
}
beforeAll(async () => {
  server = await start();
  alice = await server.rt.keys.create("task-alice", "USER");
  bob = await server.rt.keys.create("task-bob", "USER");
});
afterEach(async () => {
  release.open = true;
  for (const c of clients.splice(0)) await c.close();
  release.open = false;
});
afterAll(async () => {
  await server?.stop();
  await db.drop();
});

async function client(key: string): Promise<Client> {
  const c = (await connect(server.url, { key })).client;
  clients.push(c);
  return c;
}

/** A task-augmented `tools/call`, as the spec's requestor sends it. */
function callAsTask(c: Client, name: string, args: Record<string, unknown>): Promise<CreateTaskResult> {
  return c.request(
    { method: "tools/call", params: { name, arguments: args, task: { ttl: 60_000 } } },
    CreateTaskResultSchema,
  );
}

const statusOf = async (c: Client, taskId: string) => (await c.experimental.tasks.getTask(taskId)).status;

describe("MCP tasks", () => {
  it("should advertise tasks for tools/call, and each tool's task support by its tier", async () => {
    const c = await client(alice);
    expect(c.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await c.listTools();
    expect(tools.find((t) => t.name === "note")?.execution).toEqual({ taskSupport: "optional" });
    expect(tools.find((t) => t.name === "held")?.execution).toEqual({ taskSupport: "optional" });
  });

  it("should answer a task-augmented call at once with a working task whose id is the run's, then complete it", async () => {
    const c = await client(alice);
    const { task } = await callAsTask(c, "held", {});
    expect(task).toMatchObject({ status: "working", ttl: null, pollInterval: 1000 });
    const run = await server.rt.runs.get(task.taskId);
    expect(run).toMatchObject({ tool: "held", door: "mcp", callerKey: "task-alice" });
    await until("the run to start", async () => (await server.rt.runs.get(task.taskId))?.status === "RUNNING");
    expect(await statusOf(c, task.taskId)).toBe("working");
    release.open = true;
    const result = await c.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toEqual({ released: true });
    expect(result._meta).toMatchObject({ "tai42/runId": task.taskId, "tai42/status": "SUCCEEDED" });
    expect(await statusOf(c, task.taskId)).toBe("completed");
  });

  it("should give from tasks/result the same result a synchronous call gives", async () => {
    const c = await client(alice);
    const { task } = await callAsTask(c, "note", { text: "hello" });
    const viaTask = await c.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    const direct = (await c.callTool({ name: "note", arguments: { text: "hello" } })) as CallToolResult;
    const withoutIds = (r: CallToolResult) => ({ ...r, _meta: { ...r._meta, "tai42/runId": "", "tai42/status": "" } });
    const { "io.modelcontextprotocol/related-task": related, ...meta } = viaTask._meta ?? {};
    expect(related).toEqual({ taskId: task.taskId });
    expect(withoutIds({ ...viaTask, _meta: meta })).toEqual(withoutIds(direct));
    expect(textOf(viaTask)).toContain("hello");
  });

  it("should stream a task through the SDK's callToolStream: the task, then its result", async () => {
    const c = await client(alice);
    const seen: string[] = [];
    let result: CallToolResult | undefined;
    for await (const message of c.experimental.tasks.callToolStream(
      { name: "note", arguments: { text: "streamed" } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      seen.push(message.type);
      if (message.type === "result") result = message.result as CallToolResult;
    }
    expect(seen[0]).toBe("taskCreated");
    expect(seen[seen.length - 1]).toBe("result");
    expect(result?.structuredContent).toEqual({ text: "streamed" });
  });

  it("should cancel a held run through tasks/cancel: the task cancelled, the run CANCELLED in GraphQL", async () => {
    const c = await client(alice);
    const { task } = await callAsTask(c, "held", {});
    await until("the run to start", async () => (await server.rt.runs.get(task.taskId))?.status === "RUNNING");
    const cancelled = await c.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: "cancelled" });
    expect(await statusOf(c, task.taskId)).toBe("cancelled");
    const gql = gqlClient(server.rt);
    const res = await gql(`query ($id: ID!) { run(id: $id) { status } }`, { id: task.taskId }, alice);
    expect(res.data?.run).toEqual({ status: "CANCELLED" });
    const result = await c.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
  });

  it("should answer another caller's tasks/get, tasks/result and tasks/cancel as for a task that does not exist", async () => {
    const owner = await client(alice);
    const other = await client(bob);
    const { task } = await callAsTask(owner, "held", {});
    await expect(other.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/Task not found/);
    await expect(other.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toThrow(
      /Task not found/,
    );
    await expect(other.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/Task not found/);
    const listed = await other.experimental.tasks.listTasks();
    expect(listed.tasks.map((t) => t.taskId)).not.toContain(task.taskId);
    expect((await owner.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(task.taskId);
    expect(await statusOf(owner, task.taskId)).toBe("working");
  });

  it("should report a parked run as input_required, and give its result once its interaction is answered", async () => {
    const c = await client(alice);
    const { task } = await callAsTask(c, "approve", { amount: 7 });
    await until("the run to park", async () => (await statusOf(c, task.taskId)) === "input_required");
    expect((await c.experimental.tasks.getTask(task.taskId)).statusMessage).toContain("answerInteraction");
    const pending = c.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    const [interaction] = await server.rt.interactions.forRun(task.taskId);
    const gql = gqlClient(server.rt);
    const answered = await gql(
      `mutation ($id: ID!) { answerInteraction(id: $id, answer: { ok: true }) { status } }`,
      { id: interaction!.id },
      alice,
    );
    expect(answered.errors).toBeUndefined();
    expect((await pending).structuredContent).toEqual({ amount: 7, approved: true });
    expect(await statusOf(c, task.taskId)).toBe("completed");
  });

  it("should keep a redacted value out of a failed task's status message and result", async () => {
    const c = await client(alice);
    const { task } = await callAsTask(c, "leaky", {});
    await until("the task to fail", async () => (await statusOf(c, task.taskId)) === "failed");
    const got = await c.experimental.tasks.getTask(task.taskId);
    expect(got.statusMessage).toContain("[redacted]");
    const listed = await c.experimental.tasks.listTasks();
    const result = await c.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(JSON.stringify([got, listed, result])).not.toContain(LEAKED);
  });

  it("should refuse a secret-tier tool as a task, before any run exists, and advertise it as forbidden", async () => {
    const admin = await server.rt.keys.create(`task-admin-${Date.now()}`, "ADMIN");
    const c = await client(admin);
    const { tools } = await c.listTools();
    expect(tools.find((t) => t.name === "vault")?.execution).toEqual({ taskSupport: "forbidden" });
    const before = await server.rt.db.run.count({ where: { tool: "vault" } });
    await expect(callAsTask(c, "vault", { pin: "1234" })).rejects.toThrow(/secret-tier/);
    expect(await server.rt.db.run.count({ where: { tool: "vault" } })).toBe(before);
  });

  it("should answer a task refused at admission as a failed task, whose result is the refusal", async () => {
    const c = await client(alice);
    const { task } = await callAsTask(c, "note", { text: 42 });
    expect(task.status).toBe("failed");
    expect(task.statusMessage).toMatch(/^INVALID_INPUT: /);
    const result = await c.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
  });

  it("should answer a task from another instance on the same database, and over stateless HTTP", async () => {
    const { task } = await callAsTask(await client(alice), "held", {});
    const other = await start();
    try {
      const elsewhere = (await connect(other.url, { key: alice })).client;
      clients.push(elsewhere);
      expect(await elsewhere.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: "working" });
      release.open = true;
      const result = await elsewhere.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      expect(result.structuredContent).toEqual({ released: true });
      const stateless = await fetch(other.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${alice}`,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { taskId: task.taskId } }),
      });
      expect(stateless.status).toBe(200);
      expect(await stateless.text()).toContain('"status":"completed"');
    } finally {
      for (const c of clients.splice(0)) await c.close();
      await other.stop();
    }
  });

  it("should answer a task created before a restart of the runtime after it, from the same database", async () => {
    const { task } = await callAsTask(await client(alice), "note", { text: "durable" });
    await until("the task to complete", async () => (await server.rt.runs.get(task.taskId))?.status === "SUCCEEDED");
    for (const c of clients.splice(0)) await c.close();
    await server.stop();
    server = await start();
    const c = await client(alice);
    expect(await statusOf(c, task.taskId)).toBe("completed");
    const result = await c.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toEqual({ text: "durable" });
    await expect((await client(bob)).experimental.tasks.getTask(task.taskId)).rejects.toThrow(/Task not found/);
  });
});
