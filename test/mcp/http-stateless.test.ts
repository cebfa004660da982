import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { callerOf } from "../../src/auth/roles.ts";
import { park } from "../../src/interactions/park.ts";
import { until } from "../graphql/support.ts";
import { connect, startServer, textOf, type McpTestServer } from "./support.ts";

/**
 * The `/mcp` endpoint without sessions (TAI_MCP_SESSIONS=0), through the SDK's own
 * Client over its Streamable HTTP transport: the surface as tools, and calls through the
 * chokepoint exactly as a GraphQL dispatch.
 */
let server: McpTestServer;
const keys = { READER: "", USER: "", ADMIN: "" };
const bodyRuns = { counted: 0 };
const clients: Client[] = [];

beforeAll(async () => {
  const app = new App();
  app.tool(
    {
      name: "counted",
      description: "Counts the runs of its body.",
      input: z.object({ n: z.number().int() }),
      tier: "write",
    },
    ({ n }) => {
      bodyRuns.counted++;
      return { doubled: n * 2 };
    },
  );
  app.tool({ name: "approve", description: "Ask a person to approve.", input: z.object({}), pauses: true }, () =>
    park({ interactions: [{ question: "Approve?" }] }),
  );
  server = await startServer({ app, env: { TAI_MCP_SESSIONS: "0" } });
  for (const role of ["READER", "USER", "ADMIN"] as const)
    keys[role] = await server.rt.keys.create(`mcp-${role.toLowerCase()}`, role);
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});
afterAll(() => server?.stop());

async function client(key?: string): Promise<Client> {
  const { client, transport } = await connect(server.url, { key });
  expect(transport.sessionId, "no session is issued when TAI_MCP_SESSIONS is off").toBeUndefined();
  clients.push(client);
  return client;
}

const runOf = (result: CallToolResult) => server.rt.runs.get(result._meta!["tai42/runId"] as string);

describe("tools/list", () => {
  it("should list only the tools the caller's role may run", async () => {
    const names = async (key: string) => (await (await client(key)).listTools()).tools.map((t) => t.name);
    const reader = await names(keys.READER);
    expect(reader).toEqual(
      expect.arrayContaining(["echo", "calculate", "clock", "flaky", "kv_get", "sleep", "tools_agent"]),
    );
    expect(reader).not.toContain("kv_put");
    expect(reader).not.toContain("counted");
    expect(await names(keys.USER)).toEqual(expect.arrayContaining(["kv_put", "counted"]));
    expect(await names(keys.USER)).not.toContain("admin_stats");
    expect(await names(keys.ADMIN)).toEqual(expect.arrayContaining(["admin_stats", "sign_message", "kv_put"]));
  });

  it("should describe each tool with its input schema, its declared output schema and its origin", async () => {
    const { tools } = await (await client(keys.ADMIN)).listTools();
    const calculate = tools.find((t) => t.name === "calculate")!;
    expect(calculate).toMatchObject({
      title: "Calculator",
      inputSchema: { type: "object", required: ["op", "a", "b"] },
      outputSchema: { type: "object", properties: { result: { type: "number" } } },
      _meta: { "tai42/origin": "TOOL", "tai42/tier": "read" },
    });
    expect(tools.find((t) => t.name === "echo")!.outputSchema).toBeUndefined();
    expect(tools.find((t) => t.name === "tools_agent")!._meta).toMatchObject({ "tai42/origin": "AGENT" });
  });

  it("should derive the annotations from the tier and the retry policy's idempotent claim", async () => {
    const { tools } = await (await client(keys.ADMIN)).listTools();
    const hints = (name: string) => tools.find((t) => t.name === name)!.annotations;
    expect(hints("echo")).toEqual({ title: "Echo", readOnlyHint: true, idempotentHint: false });
    expect(hints("kv_put")).toEqual({
      title: "Store a value",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
    expect(hints("admin_stats")).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(hints("sign_message")).toEqual({ title: "Sign a message", readOnlyHint: false, idempotentHint: false });
    expect(hints("flaky")).toMatchObject({ idempotentHint: true });
  });

  it("should list a stored preset as a tool, its baked inputs gone from its schema", async () => {
    await server.rt.presets.create(
      { name: "add_ten", description: "Add ten.", baseTool: "calculate", fixedKwargs: { op: "add", b: 10 } },
      callerOf("ADMIN"),
    );
    const { tools } = await (await client(keys.USER)).listTools();
    const preset = tools.find((t) => t.name === "add_ten")!;
    expect(preset._meta).toMatchObject({ "tai42/origin": "PRESET", "tai42/tier": "read" });
    expect(Object.keys(preset.inputSchema.properties ?? {})).toEqual(["a"]);
    const result = await (await client(keys.USER)).callTool({ name: "add_ten", arguments: { a: 5 } });
    expect(result.structuredContent).toEqual({ result: 15 });
  });
});

describe("notifications/tools/list_changed", () => {
  /** A client whose notification stream (its GET) is open, with the list_changed it receives. */
  async function watching(key: string) {
    const changes: unknown[] = [];
    let streamOpen = false;
    const { client: c } = await connect(server.url, {
      key,
      fetch: async (url, init) => {
        const res = await fetch(url, init);
        if ((init?.method ?? "GET") === "GET" && res.status === 200) streamOpen = true;
        return res;
      },
    });
    clients.push(c);
    c.setNotificationHandler(ToolListChangedNotificationSchema, (n) => void changes.push(n));
    await until("the notification stream to open", () => streamOpen);
    return { client: c, changes };
  }

  it("should announce each preset created, updated or deleted on the notification stream, without a session", async () => {
    const { client: c, changes } = await watching(keys.USER);
    const admin = callerOf("ADMIN");
    await server.rt.presets.create(
      { name: "double_three", description: "Double three.", baseTool: "counted", fixedKwargs: { n: 3 } },
      admin,
    );
    await until("list_changed after the preset was created", () => changes.length === 1);
    expect((await c.listTools()).tools.map((t) => t.name)).toContain("double_three");
    await server.rt.presets.update(
      "double_three",
      { name: "double_three", description: "Double four.", baseTool: "counted", fixedKwargs: { n: 4 } },
      1,
      admin,
    );
    await until("list_changed after the preset was updated", () => changes.length === 2);
    await server.rt.presets.delete("double_three", admin);
    await until("list_changed after the preset was deleted", () => changes.length === 3);
    expect((await c.listTools()).tools.map((t) => t.name)).not.toContain("double_three");
  });

  it("should not announce a change to a tier above the caller's role", async () => {
    const { changes } = await watching(keys.READER);
    const admin = callerOf("ADMIN");
    await server.rt.presets.create(
      { name: "hidden_write", description: "A write preset.", baseTool: "counted", fixedKwargs: { n: 1 } },
      admin,
    );
    await server.rt.presets.create(
      { name: "visible_read", description: "A read preset.", baseTool: "echo", fixedKwargs: { text: "hi" } },
      admin,
    );
    await until("list_changed for the read preset", () => changes.length >= 1);
    expect(changes, "one announcement: the write preset's was not for a READER").toHaveLength(1);
  });
});

describe("tools/call", () => {
  it("should run the tool through the chokepoint with door mcp and the caller, and persist the run", async () => {
    const result = (await (
      await client(keys.USER)
    ).callTool({ name: "echo", arguments: { text: "hello" } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: "text", text: "hello" }]);
    const run = await runOf(result);
    expect(run).toMatchObject({
      tool: "echo",
      status: "SUCCEEDED",
      door: "mcp",
      callerRole: "USER",
      callerKey: "mcp-user",
      input: { text: "hello" },
    });
    expect((await server.rt.runs.events({ runId: run!.id }, 0)).map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "RUN_FINISHED",
    ]);
  });

  it("should run as the anonymous role when no key is sent", async () => {
    const result = (await (await client()).callTool({ name: "echo", arguments: { text: "anon" } })) as CallToolResult;
    expect(await runOf(result)).toMatchObject({ door: "mcp", callerRole: "USER", callerKey: null });
  });

  it("should return the structured output as structuredContent, valid against the advertised output schema", async () => {
    const c = await client(keys.USER);
    await c.listTools(); // the SDK client validates structuredContent against the schemas it listed
    const result = await c.callTool({ name: "calculate", arguments: { op: "multiply", a: 6, b: 7 } });
    expect(result.structuredContent).toEqual({ result: 42 });
  });

  it("should answer invalid arguments as an error result carrying every issue, and never run the body", async () => {
    const before = bodyRuns.counted;
    const result = (await (
      await client(keys.USER)
    ).callTool({ name: "counted", arguments: { n: "two", extra: true } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      status: "FAILED",
      error: {
        kind: "INVALID_INPUT",
        message: 'invalid input for "counted": /extra: is not an allowed property; /n: must be integer',
        issues: [
          { path: "/extra", message: "is not an allowed property" },
          { path: "/n", message: "must be integer" },
        ],
      },
    });
    expect(textOf(result)).toMatch(/^INVALID_INPUT: /);
    expect(bodyRuns.counted).toBe(before);
    expect(await runOf(result)).toMatchObject({ status: "FAILED", errorKind: "INVALID_INPUT", door: "mcp" });
  });

  it("should answer a forbidden tier as a PERMISSION_DENIED error result, and never run the body", async () => {
    const before = bodyRuns.counted;
    const result = (await (
      await client(keys.READER)
    ).callTool({ name: "counted", arguments: { n: 1 } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      error: { kind: "PERMISSION_DENIED", message: 'role READER may not run write-tier tool "counted"' },
    });
    expect(bodyRuns.counted).toBe(before);
    expect(await runOf(result)).toMatchObject({
      status: "FAILED",
      errorKind: "PERMISSION_DENIED",
      callerRole: "READER",
      attempts: [],
    });
  });

  it("should answer an unknown tool as a NOT_FOUND error result, recorded for audit", async () => {
    const result = (await (
      await client(keys.USER)
    ).callTool({ name: "no_such_tool", arguments: {} })) as CallToolResult;
    expect(result).toMatchObject({ isError: true, structuredContent: { error: { kind: "NOT_FOUND" } } });
    expect(await runOf(result)).toMatchObject({
      tool: "no_such_tool",
      status: "FAILED",
      errorKind: "NOT_FOUND",
      door: "mcp",
    });
  });

  it("should put the outcome of a failed call in _meta for a tool that advertises an output schema", async () => {
    const c = await client(keys.USER);
    await c.listTools();
    const result = (await c.callTool({ name: "calculate", arguments: { op: "divide", a: 1, b: 0 } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result._meta!["tai42/outcome"]).toMatchObject({
      status: "FAILED",
      error: { kind: "INVALID_INPUT", message: "cannot divide by zero" },
    });
  });

  it("should return the first run, without running the body again, for a re-issued idempotency key in _meta", async () => {
    const c = await client(keys.USER);
    const before = bodyRuns.counted;
    const call = () =>
      c.callTool({
        name: "counted",
        arguments: { n: 4 },
        _meta: { "tai42/idempotencyKey": "order-7" },
      }) as Promise<CallToolResult>;
    const first = await call();
    const again = await call();
    expect(again._meta!["tai42/runId"]).toBe(first._meta!["tai42/runId"]);
    expect(again.structuredContent).toEqual({ doubled: 8 });
    expect(bodyRuns.counted - before).toBe(1);
  });

  it("should refuse a malformed idempotency key as invalid params, with no run", async () => {
    const c = await client(keys.USER);
    await expect(
      c.callTool({ name: "counted", arguments: { n: 1 }, _meta: { "tai42/idempotencyKey": "" } }),
    ).rejects.toThrow(/tai42\/idempotencyKey/);
  });

  it("should refuse dispatch options out of the chokepoint's bounds (a 201-character key, a timeout of 0) as invalid params, with no run", async () => {
    const c = await client(keys.USER);
    const before = bodyRuns.counted;
    await expect(
      c.callTool({ name: "counted", arguments: { n: 1 }, _meta: { "tai42/idempotencyKey": "k".repeat(201) } }),
    ).rejects.toThrow(/tai42\/idempotencyKey.*1 to 200 characters/);
    await expect(
      c.callTool({ name: "counted", arguments: { n: 1 }, _meta: { "tai42/timeoutSeconds": 0 } }),
    ).rejects.toThrow(/tai42\/timeoutSeconds.*> 0/);
    expect(bodyRuns.counted).toBe(before);
  });

  it("should shorten the attempt's timeout with _meta tai42/timeoutSeconds", async () => {
    const result = (await (
      await client(keys.USER)
    ).callTool({
      name: "sleep",
      arguments: { seconds: 30 },
      _meta: { "tai42/timeoutSeconds": 0.05 },
    })) as CallToolResult;
    expect(result).toMatchObject({ isError: true, structuredContent: { error: { kind: "TIMEOUT" } } });
  });

  it("should report each event of the run as progress when the client sends a progress token", async () => {
    const progress: Progress[] = [];
    const result = (await (
      await client(keys.USER)
    ).callTool({ name: "flaky", arguments: { failures: 1 } }, undefined, {
      onprogress: (p) => progress.push(p),
    })) as CallToolResult;
    expect(result.structuredContent).toEqual({ answeredOnAttempt: 2 });
    const runId = result._meta!["tai42/runId"];
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(progress.map((p) => p.message)).toEqual([
      `run ${runId} of "flaky" started`,
      expect.stringMatching(
        /^attempt 1 failed \(UNAVAILABLE: service unavailable \(attempt 1\)\); retrying in 0\.05 s$/,
      ),
      `run ${runId} SUCCEEDED`,
    ]);
  });

  it("should return a parked run with its interactions, without eliciting: with no session the answer could not be routed", async () => {
    const asked: unknown[] = [];
    const { client: c } = await connect(server.url, {
      key: keys.USER,
      onElicit: (r) => (asked.push(r), { action: "accept", content: { answer: "yes" } }),
    });
    clients.push(c);
    const result = (await c.callTool({ name: "approve", arguments: {} })) as CallToolResult;
    expect(asked).toEqual([]);
    expect(result).toMatchObject({
      structuredContent: { status: "PARKED", interactions: [{ question: "Approve?", to: "user", answerFormat: null }] },
    });
    expect(result.isError).toBeFalsy();
  });
});
