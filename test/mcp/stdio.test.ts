import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerOf } from "../../src/auth/roles.ts";
import { until } from "../graphql/support.ts";
import { runCli } from "../helpers/cli.ts";
import { freshDatabase, redisTestUrl, requireRedis } from "../helpers/databases.ts";
import { redisSubscribed } from "../helpers/redis.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * `tai mcp`: the stdio transport, spawned as a desktop client spawns it (`node bin/tai.mjs
 * mcp`, the compiled CLI) and driven by the SDK's own Client over its
 * StdioClientTransport. A runtime of the test shares the child's SQLite database (and,
 * for list_changed, its Redis).
 */
const BIN = fileURLToPath(new URL("../../bin/tai.mjs", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SLOW = 120_000;
const withRedis = await requireRedis();

let databaseUrl: string;
let rt: TestRuntime;
let userKey: string;
const prefix = `tai42-test-${randomUUID()}:`;

beforeAll(async () => {
  databaseUrl = (await freshDatabase("sqlite")).url;
  rt = await testRuntime({ databaseUrl, config: withRedis ? { redisUrl: redisTestUrl(), redisPrefix: prefix } : {} });
  userKey = await rt.keys.create("stdio-user", "USER");
});
afterAll(() => rt?.dispose());

const childEnv = (env: Record<string, string> = {}) => ({
  DATABASE_URL: databaseUrl,
  TAI_MODULES: "test/fixtures/mcp-tools.ts",
  TAI_LOG: "silent",
  ...(withRedis ? { REDIS_URL: redisTestUrl(), TAI_REDIS_PREFIX: prefix } : {}),
  ...env,
});

describe("tai mcp (stdio) with an elicitation-capable client", () => {
  let client: Client;
  let transport: StdioClientTransport;
  const answers: { action: "accept" | "decline" | "cancel"; content?: Record<string, boolean> }[] = [];
  const asked: string[] = [];
  const changes: unknown[] = [];

  beforeAll(async () => {
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp"],
      cwd: ROOT,
      env: childEnv({ TAI_KEY: userKey }),
      stderr: "pipe",
    });
    client = new Client(
      { name: "tai42-stdio-tests", version: "1.0.0" },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return answers.shift() ?? { action: "cancel" };
    });
    client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => void changes.push(n));
    await client.connect(transport);
  }, SLOW);
  afterAll(async () => {
    await client?.close();
  });

  it("should list the surface the key's role may run, modules' tools included", async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["echo", "kv_put", "approve", "wait_for_cancel", "chatty"]));
    expect(names).not.toContain("admin_stats");
  });

  it("should run a call through the chokepoint as the TAI_KEY holder, recorded with door mcp", async () => {
    const result = (await client.callTool({ name: "echo", arguments: { text: "over stdio" } })) as CallToolResult;
    expect(result.content).toEqual([{ type: "text", text: "over stdio" }]);
    expect(await rt.runs.get(result._meta!["tai42/runId"] as string)).toMatchObject({
      status: "SUCCEEDED",
      door: "mcp",
      callerKey: "stdio-user",
      callerRole: "USER",
    });
  });

  it("should run a task-augmented call as a background run, answered as its task and then its result", async () => {
    const { task } = await client.request(
      { method: "tools/call", params: { name: "echo", arguments: { text: "as a task" }, task: { ttl: 1000 } } },
      CreateTaskResultSchema,
    );
    expect(task).toMatchObject({ status: "working", ttl: null });
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.content).toEqual([{ type: "text", text: "as a task" }]);
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: "completed" });
    expect(await rt.runs.get(task.taskId)).toMatchObject({ status: "SUCCEEDED", door: "mcp", callerKey: "stdio-user" });
  });

  it("should answer a forbidden tier as an error result", async () => {
    const result = (await client.callTool({ name: "admin_stats", arguments: {} })) as CallToolResult;
    expect(result).toMatchObject({ isError: true, structuredContent: { error: { kind: "PERMISSION_DENIED" } } });
  });

  it("should keep a module's console output off the protocol stream", async () => {
    const result = (await client.callTool({ name: "chatty", arguments: {} })) as CallToolResult;
    expect(result.content).toEqual([{ type: "text", text: "said something" }]);
  });

  it("should ask the user through elicitation when a run parks, and resume it with the answer", async () => {
    answers.push({ action: "accept", content: { ok: true } });
    const result = (await client.callTool({ name: "approve", arguments: { amount: 3 } })) as CallToolResult;
    expect(asked.at(-1)).toBe("Approve 3?");
    expect(result.structuredContent).toEqual({ amount: 3, approved: true });
    expect(await rt.runs.get(result._meta!["tai42/runId"] as string)).toMatchObject({ status: "SUCCEEDED" });
  });

  it("should cancel the run when the client cancels the call", async () => {
    const controller = new AbortController();
    const call = client.callTool({ name: "wait_for_cancel", arguments: {} }, undefined, { signal: controller.signal });
    let runId = "";
    await until("the run to start", async () => {
      runId =
        (await rt.db.run.findFirst({ where: { tool: "wait_for_cancel", status: "RUNNING" }, select: { id: true } }))
          ?.id ?? "";
      return runId !== "";
    });
    controller.abort("stop");
    await expect(call).rejects.toThrow();
    await until("the run to be cancelled", async () => (await rt.runs.get(runId))?.status === "CANCELLED");
    expect(await rt.runs.get(runId)).toMatchObject({
      errorKind: "CANCELLED",
      errorMessage: "the MCP client cancelled the call: stop",
    });
  });

  it.skipIf(!withRedis)("should notify list_changed when a manifest is activated elsewhere", async () => {
    await redisSubscribed(prefix, ["configChanged"], 2);
    const admin = callerOf("ADMIN", "test-admin", "key-admin");
    await rt.manifests.put(
      { name: "stdio-echo", description: "Echo alone.", document: { tools: { include: ["echo"] } } },
      undefined,
      admin,
    );
    await rt.manifests.activate("stdio-echo", admin);
    await until("list_changed over stdio", () => changes.length > 0);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["echo"]);
  });
});

describe("tai mcp (stdio) on its own", () => {
  it(
    "should write nothing but protocol messages on stdout, and logs and console output to stderr",
    async () => {
      // A database of its own, without Redis: the manifest activated above is not there.
      const own = (await freshDatabase("sqlite")).url;
      const env = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATABASE_URL: own,
        TAI_MODULES: "test/fixtures/mcp-tools.ts",
      };
      const child = spawn(process.execPath, [BIN, "mcp"], { cwd: ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (d) => (stderr += d));
      const lines: string[] = [];
      createInterface({ input: child.stdout }).on("line", (l) => lines.push(l));
      const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
      send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      });
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "chatty", arguments: {} } });
      await until("the call's answer", () => lines.some((l) => l.includes('"id":2')), 60_000);
      // "close": the exit code, and every byte of stdout and stderr read.
      const exited = new Promise((r) => child.once("close", r));
      child.stdin.end();
      expect(await exited).toBe(0);
      for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
      expect(lines.map((l) => JSON.parse(l).id)).toEqual([1, 2]);
      expect(JSON.parse(lines[1]).result.content).toEqual([{ type: "text", text: "said something" }]);
      expect(stderr).toContain("chatty was here");
    },
    SLOW,
  );

  it(
    "should refuse a bad key on stderr, with exit code 2 and nothing on stdout",
    async () => {
      const r = await runCli(["mcp", "--key", "tai_not-a-key"], childEnv());
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain("error (UNAUTHENTICATED): the API key is unknown or revoked");
    },
    SLOW,
  );
});
