import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../helpers/databases.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { expectReadableInvalidParams, INVALID_REQUESTS, refusalOf } from "./invalid-params-cases.ts";
import { textOf } from "./support.ts";

/**
 * Refusals over `tai mcp` (stdio), spawned as a desktop client spawns it and driven by the
 * SDK's own Client over its StdioClientTransport, as a USER key: a forbidden tier and
 * invalid arguments are error results, and the tool's body never runs. The bodies run in
 * the child, so each appends a line to a file (test/fixtures/mcp-touch-tools.ts) that this
 * process reads; a runtime of the test shares the child's SQLite database to read the runs.
 */
const BIN = fileURLToPath(new URL("../../bin/tai.mjs", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SLOW = 120_000;

let rt: TestRuntime;
let dir: string;
let touchFile: string;
let client: Client;

beforeAll(async () => {
  const { url: databaseUrl } = await freshDatabase("sqlite");
  rt = await testRuntime({ databaseUrl });
  const userKey = await rt.keys.create("stdio-refusals-user", "USER");
  dir = mkdtempSync(join(tmpdir(), "tai42-stdio-"));
  touchFile = join(dir, "touched.txt");
  const env = {
    DATABASE_URL: databaseUrl,
    TAI_MODULES: "test/fixtures/mcp-touch-tools.ts",
    TAI_LOG: "silent",
    TAI_KEY: userKey,
    TAI_TEST_TOUCH_FILE: touchFile,
  };
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp"],
    cwd: ROOT,
    env,
    stderr: "pipe",
  });
  client = new Client({ name: "tai42-stdio-refusals", version: "1.0.0" });
  await client.connect(transport);
}, SLOW);
afterAll(async () => {
  await client?.close();
  await rt?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The lines the child's tool bodies have written so far. */
const touched = (): string[] =>
  existsSync(touchFile) ? readFileSync(touchFile, "utf8").split("\n").filter(Boolean) : [];
const call = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;
const runOf = (result: CallToolResult) => rt.runs.get(result._meta!["tai42/runId"] as string);

describe("tai mcp (stdio): refusals never run the body", () => {
  it("should run a body the key's role may run, which leaves its line in the file", async () => {
    const before = touched();
    const result = await call("touch_write", { note: "allowed" });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("touch_write allowed");
    expect(touched()).toEqual([...before, "touch_write allowed"]);
  });

  it("should answer a forbidden tier with a PERMISSION_DENIED result, the body never running", async () => {
    const before = touched();
    const result = await call("touch_fenced", { note: "forbidden" });
    expect(result).toMatchObject({
      isError: true,
      structuredContent: {
        status: "FAILED",
        error: { kind: "PERMISSION_DENIED", message: 'role USER may not run fenced-tier tool "touch_fenced"' },
      },
    });
    expect(textOf(result)).toMatch(/^PERMISSION_DENIED: /);
    // The body appends synchronously before a run can end: had it run, its line would be there.
    expect(touched()).toEqual(before);
    expect(await runOf(result)).toMatchObject({
      tool: "touch_fenced",
      status: "FAILED",
      errorKind: "PERMISSION_DENIED",
      door: "mcp",
      callerRole: "USER",
      attempts: [],
    });
  });

  it("should answer invalid arguments with an error result carrying every issue in structuredContent, the body never running", async () => {
    const before = touched();
    const result = await call("touch_write", { note: 5, extra: true });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      status: "FAILED",
      error: {
        kind: "INVALID_INPUT",
        issues: [
          { path: "/extra", message: "is not an allowed property" },
          { path: "/note", message: "must be string" },
        ],
      },
    });
    expect(textOf(result)).toMatch(/^INVALID_INPUT: /);
    expect(touched()).toEqual(before);
    expect(await runOf(result)).toMatchObject({
      tool: "touch_write",
      status: "FAILED",
      errorKind: "INVALID_INPUT",
      door: "mcp",
      attempts: [],
    });
  });

  it("should answer invalid params as JSON-RPC -32602 naming the argument, the session going on", async () => {
    for (const { method, params, names } of INVALID_REQUESTS)
      expectReadableInvalidParams(await refusalOf(client, { method, params }), method, names);
    expect(textOf(await call("touch_write", { note: "after" }))).toBe("touch_write after");
  });
});
