import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult, ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { App } from "../../../src/app.ts";
import { until } from "../../graphql/support.ts";
import { freshDatabase } from "../../helpers/databases.ts";
import { as } from "../../helpers/runtime.ts";
import { connect, startServer, textOf, type McpTestServer } from "../../mcp/support.ts";
import { EVERYTHING, FILESYSTEM } from "./support.ts";

/**
 * tai42 as an MCP gateway (docs/connectors.md §10): real server-everything and
 * server-filesystem behind `mcp` connectors, the SDK's own Client against tai42's `/mcp`
 * and against `tai mcp` over stdio (the compiled CLI: `node scripts/build.mjs` first).
 */
const BIN = fileURLToPath(new URL("../../../bin/tai.mjs", import.meta.url));
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const kind = process.env.TAI_TEST_DB === "postgres" ? "postgres" : "sqlite";
let dir: string;
let database: Awaited<ReturnType<typeof freshDatabase>>;
let server: McpTestServer;
let readerKey: string;
let adminKey: string;
let userKey: string;
const clients: Client[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tai42-gateway-"));
  database = await freshDatabase(kind);
  server = await startServer({ app: new App(), databaseUrl: database.url });
  const admin = as("ADMIN");
  await server.rt.connectors.put(admin, {
    name: "everything",
    kind: "mcp",
    settings: { command: process.execPath, args: [EVERYTHING, "stdio"] },
  });
  await server.rt.connectors.put(admin, {
    name: "fs",
    kind: "mcp",
    settings: { command: process.execPath, args: [FILESYSTEM, dir] },
  });
  await until(
    "the connectors' tools are on the surface",
    () =>
      server.rt.surface.resolve("everything_echo") !== undefined &&
      server.rt.surface.resolve("fs_write_file") !== undefined,
    20_000,
  );
  readerKey = await server.rt.keys.create("gw-reader", "READER");
  adminKey = await server.rt.keys.create("gw-admin", "ADMIN");
  userKey = await server.rt.keys.create("gw-user", "USER");
}, 120_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await server?.stop();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function client(key: string): Promise<Client> {
  const { client: c } = await connect(server.url, { key });
  clients.push(c);
  return c;
}

describe("tai42's /mcp fronts the connectors' upstream servers", () => {
  it("lists to a READER only the upstream tools a READER may call", async () => {
    const names = (await (await client(readerKey)).listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["everything_echo", "fs_read_text_file", "fs_list_directory"]));
    expect(names).not.toContain("fs_write_file");
    expect(names).not.toContain("fs_create_directory");
  });

  it("serves tai42's own annotations for a connector tool, derived from the tier that applies", async () => {
    const tools = (await (await client(adminKey)).listTools()).tools;
    const echo = tools.find((t) => t.name === "everything_echo")!;
    const write = tools.find((t) => t.name === "fs_write_file")!;
    expect(echo.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: false });
    expect(write.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    // The upstream's own hints are not relayed: server-filesystem marks write_file idempotent.
    const upstream = (await server.rt.connectors.get(as("ADMIN"), "fs"))!.tools.find((t) => t.name === "write_file")!;
    expect(upstream.annotations).toMatchObject({ idempotentHint: true });
  });

  it("refuses a READER write_file without calling the upstream", async () => {
    const file = join(dir, "refused.txt");
    const result = (await (
      await client(readerKey)
    ).callTool({ name: "fs_write_file", arguments: { path: file, content: "no" } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/permission|not allowed|denied|tier/i);
    expect(existsSync(file)).toBe(false);
  });

  it("returns the upstream's echo result faithfully to an ADMIN", async () => {
    const result = (await (
      await client(adminKey)
    ).callTool({ name: "everything_echo", arguments: { message: "through the gateway" } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: "text", text: "Echo: through the gateway" }]);
  });

  it("should ask the MCP client the upstream's elicitation of a parked connector call and resume the run with its answer", async () => {
    const asked: ElicitRequest["params"][] = [];
    const { client: c } = await connect(server.url, {
      key: userKey,
      onElicit: (request) => {
        asked.push(request.params);
        return { action: "accept", content: { answer: JSON.stringify({ name: "Marie Curie" }) } };
      },
    });
    clients.push(c);
    const result = (await c.callTool({
      name: "everything_trigger-elicitation-request",
      arguments: {},
    })) as CallToolResult;
    expect(asked).toHaveLength(1);
    // Its form has a multiple-select field, which an MCP form cannot hold: it is asked as one JSON answer.
    expect(asked[0]).toMatchObject({
      mode: "form",
      message: "Please provide inputs for the following fields:",
      requestedSchema: { required: ["answer"] },
    });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toMatch(/- Name: Marie Curie/);
    const run = await server.rt.runs.get(result._meta!["tai42/runId"] as string);
    expect(run).toMatchObject({ status: "SUCCEEDED", door: "mcp" });
    expect((await server.rt.interactions.forRun(run!.id)).map((i) => i.status)).toEqual(["ANSWERED"]);
  });

  it("writes the file for an ADMIN's write_file", async () => {
    const file = join(dir, "written.txt");
    const result = (await (
      await client(adminKey)
    ).callTool({ name: "fs_write_file", arguments: { path: file, content: "gateway wrote this" } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(readFileSync(file, "utf8")).toBe("gateway wrote this");
  });
});

/** The SDK's Client over `tai mcp` (stdio) as the holder of `key`. */
async function stdioClient(key: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp"],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", DATABASE_URL: database.url, TAI_KEY: key, TAI_LOG: "silent" },
    stderr: "pipe",
  });
  const c = new Client({ name: "tai42-gateway-stdio", version: "1.0.0" });
  clients.push(c);
  await c.connect(transport);
  return c;
}

describe("tai mcp (stdio) fronts the connectors too", () => {
  it("lists and calls a connector tool as the TAI_KEY holder", async () => {
    const c = await stdioClient(readerKey);
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names).toContain("everything_echo");
    expect(names).not.toContain("fs_write_file");
    const result = (await c.callTool({
      name: "everything_echo",
      arguments: { message: "over stdio" },
    })) as CallToolResult;
    expect(result.content).toEqual([{ type: "text", text: "Echo: over stdio" }]);
  }, 60_000);

  it("should refuse a READER's call of a connector write tool without reaching the upstream", async () => {
    const file = join(dir, "refused-over-stdio.txt");
    const since = new Date();
    const result = (await (
      await stdioClient(readerKey)
    ).callTool({ name: "fs_write_file", arguments: { path: file, content: "no" } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/permission|not allowed|denied|tier/i);
    expect(existsSync(file)).toBe(false);
    const runs = await server.rt.runs.list({ tool: "fs_write_file", door: "mcp", startedAfter: since }, 10);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      callerRole: "READER",
      status: "FAILED",
      errorKind: "PERMISSION_DENIED",
      attempts: [],
    });
  }, 60_000);
});
