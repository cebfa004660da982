import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mcpKind } from "../../../src/connectors/mcp/mcp-kind.ts";
import type { McpConnection } from "../../../src/connectors/mcp/mcp-connection.ts";
import type { UpstreamTool } from "../../../src/connectors/connector-kind.ts";
import { expiringStore, type ExpiringStore } from "../../../src/db/expiring-store.ts";
import { ToolError } from "../../../src/errors.ts";
import { normalizeResult } from "../../../src/tools/result.ts";
import { testRuntime, type TestRuntime } from "../../helpers/runtime.ts";
import { EVERYTHING, everythingStdio, mcpEnv, toolNamed, upstreamCall } from "./support.ts";

let rt: TestRuntime;
let store: ExpiringStore;
let conn: McpConnection;
let tools: UpstreamTool[];
const SECRET_VAR = "TAI42_MCP_TEST_SECRET";

beforeAll(async () => {
  process.env[SECRET_VAR] = "in-tai42-only";
  rt = await testRuntime();
  store = expiringStore(rt.db);
  const { env } = mcpEnv(everythingStdio({ env: { NAMED_VAR: "given-by-the-connector" } }), { store, bus: rt.bus });
  conn = (await mcpKind.connect(env)) as McpConnection;
  tools = (await conn.list()).tools;
}, 60_000);

afterAll(async () => {
  delete process.env[SECRET_VAR];
  await conn?.close();
  await rt?.dispose();
});

const failureOf = async (p: Promise<unknown>): Promise<ToolError> => {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ToolError);
  return e as ToolError;
};

describe("an MCP connection over stdio (server-everything)", () => {
  it("lists every tool with its schemas and annotations exactly as the server sends them", async () => {
    const raw = new Client({ name: "reference", version: "1" }, { capabilities: { elicitation: { form: {} } } });
    await raw.connect(
      new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "pipe" }),
    );
    const reference = (await raw.listTools()).tools.filter((t) => t.execution?.taskSupport !== "required");
    await raw.close();
    expect(tools.map((t) => t.name).sort()).toEqual(reference.map((t) => t.name).sort());
    for (const r of reference) {
      const t = toolNamed(tools, r.name);
      expect(t.inputSchema).toEqual(r.inputSchema);
      expect(t.outputSchema).toEqual(r.outputSchema);
      expect(t.annotations).toEqual(r.annotations);
      expect(t.description).toBe(r.description ?? "");
      expect(t.title).toBe(r.title);
    }
    expect(toolNamed(tools, "get-structured-content").outputSchema).toMatchObject({ type: "object" });
  });

  it("proposes read only for readOnlyHint true, write otherwise, and marks every tool as pausing when elicitation is advertised", async () => {
    expect(toolNamed(tools, "echo").proposedTier).toBe("read");
    expect(toolNamed(tools, "trigger-long-running-operation").proposedTier).toBe("read");
    expect(toolNamed(tools, "gzip-file-as-resource").proposedTier).toBe("write");
    expect(toolNamed(tools, "trigger-elicitation-request").proposedTier).toBe("write");
    expect(tools.every((t) => t.pauses === true)).toBe(true);
  });

  it("refuses a tool that requires task-based execution, with the reason", async () => {
    const { refused } = await conn.list();
    expect(refused).toEqual([
      { name: "simulate-research-query", reason: expect.stringContaining("task-based execution") },
    ]);
  });

  it("calls echo and returns its text as the result's content", async () => {
    const out = normalizeResult(
      "up_echo",
      await conn.call(toolNamed(tools, "echo"), { message: "hello upstream" }, upstreamCall(store)),
    );
    expect(out.isError).toBe(false);
    expect(out.content).toEqual([{ type: "text", text: "Echo: hello upstream" }]);
  });

  it("returns structuredContent as the result's data, checked against the tool's output schema", async () => {
    const out = normalizeResult(
      "up_s",
      await conn.call(toolNamed(tools, "get-structured-content"), { location: "Chicago" }, upstreamCall(store)),
    );
    expect(out.isError).toBe(false);
    expect(out.data).toEqual(JSON.parse(out.content[0]!.text!));
    expect(Object.keys(out.data as object).sort()).toEqual(["conditions", "humidity", "temperature"]);
  });

  it("fails a structuredContent that does not match the stored output schema as UPSTREAM, naming the problem", async () => {
    const strict = {
      ...toolNamed(tools, "get-structured-content"),
      outputSchema: { type: "object", properties: { temperature: { type: "string" } }, required: ["temperature"] },
    };
    const err = await failureOf(conn.call(strict, { location: "Chicago" }, upstreamCall(store)));
    expect(err.kind).toBe("UPSTREAM");
    expect(err.message).toMatch(/does not match its output schema.*temperature/);
  });

  it("turns an isError result into a failed UPSTREAM result that keeps the content and the joined text as its message", async () => {
    const out = normalizeResult("up_echo", await conn.call(toolNamed(tools, "echo"), { nope: 1 }, upstreamCall(store)));
    expect(out.isError).toBe(true);
    expect(out.errorKind).toBe("UPSTREAM");
    expect(out.errorMessage).toMatch(/Input validation error/);
    expect(out.content[0]!.text).toBe(out.errorMessage);
  });

  // The SDK drops a progress notification that arrives with the response (its handler is
  // removed when the response is read), so the last step's may or may not be reported.
  it("reports the upstream's progress notifications through onUpdate, in order", async () => {
    const call = upstreamCall(store);
    const out = normalizeResult(
      "up_long",
      await conn.call(toolNamed(tools, "trigger-long-running-operation"), { duration: 0.6, steps: 3 }, call),
    );
    expect(out.content[0]!.text).toMatch(/Long running operation completed/);
    expect(call.updates.slice(0, 2)).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
    ]);
    expect(call.updates.length).toBeLessThanOrEqual(3);
  });

  it("rejects with the signal's reason when the run is cancelled mid-call, and the connection serves the next call", async () => {
    const call = upstreamCall(store);
    const pending = conn.call(toolNamed(tools, "trigger-long-running-operation"), { duration: 20, steps: 20 }, call);
    const reason = new ToolError("cancelled by the test", { kind: "CANCELLED" });
    setTimeout(() => call.controller.abort(reason), 200);
    const started = Date.now();
    await expect(pending).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(conn.pending.size).toBe(0);
    const out = normalizeResult(
      "up_echo",
      await conn.call(toolNamed(tools, "echo"), { message: "still here" }, upstreamCall(store)),
    );
    expect(out.content[0]!.text).toBe("Echo: still here");
  });

  it("fails TIMEOUT when the upstream does not answer within the attempt's timeout", async () => {
    const err = await failureOf(
      conn.call(
        toolNamed(tools, "trigger-long-running-operation"),
        { duration: 30, steps: 1 },
        upstreamCall(store, { timeoutMs: 400 }),
      ),
    );
    expect(err.kind).toBe("TIMEOUT");
    expect(conn.pending.size).toBe(0);
  });

  it("gives the process only the variables the connector names and the SDK's defaults, never tai42's own environment", async () => {
    const out = normalizeResult("up_env", await conn.call(toolNamed(tools, "get-env"), {}, upstreamCall(store)));
    const upstreamEnv = JSON.parse(out.content[0]!.text!) as Record<string, string>;
    expect(process.env[SECRET_VAR]).toBe("in-tai42-only");
    expect(upstreamEnv[SECRET_VAR]).toBeUndefined();
    expect(upstreamEnv.NAMED_VAR).toBe("given-by-the-connector");
    expect(upstreamEnv.PATH).toBe(process.env.PATH);
    expect(Object.keys(upstreamEnv).filter((k) => /DATABASE|TAI_|REDIS/.test(k))).toEqual([]);
  });
});
