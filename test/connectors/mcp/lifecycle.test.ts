import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpKind } from "../../../src/connectors/mcp/mcp-kind.ts";
import type { McpConnection } from "../../../src/connectors/mcp/mcp-connection.ts";
import { expiringStore, type ExpiringStore } from "../../../src/db/expiring-store.ts";
import { ToolError } from "../../../src/errors.ts";
import { normalizeResult } from "../../../src/tools/result.ts";
import { until } from "../../graphql/support.ts";
import { testRuntime, type TestRuntime } from "../../helpers/runtime.ts";
import { everythingStdio, FILESYSTEM, mcpEnv, toolNamed, upstreamCall } from "./support.ts";

let rt: TestRuntime;
let store: ExpiringStore;
let dir: string;
const open: McpConnection[] = [];
const track = (c: unknown) => {
  open.push(c as McpConnection);
  return c as McpConnection;
};

beforeAll(async () => {
  rt = await testRuntime();
  store = expiringStore(rt.db);
  dir = mkdtempSync(join(tmpdir(), "tai42-mcp-fs-"));
});

afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await rt?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe("an MCP connection's lifecycle", () => {
  it("reports the connection lost when the server process dies mid-call, fails that call UNAVAILABLE, and a new connect works", async () => {
    const { env, heard } = mcpEnv(everythingStdio(), { store, bus: rt.bus });
    const conn = track(await mcpKind.connect(env));
    const tools = (await conn.list()).tools;
    const call = conn.call(
      toolNamed(tools, "trigger-long-running-operation"),
      { duration: 20, steps: 20 },
      upstreamCall(store),
    );
    await until("the call is in flight", () => conn.pending.size === 1);
    process.kill(conn.pid!, "SIGKILL");
    const err = await call.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as ToolError).kind).toBe("UNAVAILABLE");
    await until("lost is reported", () => heard.lost.length === 1);
    expect(heard.lost[0]!.message).toMatch(/closed the connection/);
    const next = await conn
      .call(toolNamed(tools, "echo"), { message: "x" }, upstreamCall(store))
      .catch((e: unknown) => e);
    expect((next as ToolError).kind).toBe("UNAVAILABLE");
    await conn.close();
    expect(heard.lost).toHaveLength(1);

    const again = track(await mcpKind.connect(mcpEnv(everythingStdio(), { store, bus: rt.bus }).env));
    const out = normalizeResult(
      "up_echo",
      await again.call(toolNamed(tools, "echo"), { message: "back" }, upstreamCall(store)),
    );
    expect(out.content[0]!.text).toBe("Echo: back");
  }, 60_000);

  it("does not report a connection it closed itself as lost", async () => {
    const { env, heard } = mcpEnv(everythingStdio(), { store, bus: rt.bus });
    const conn = await mcpKind.connect(env);
    await conn.close();
    expect(heard.lost).toEqual([]);
  });

  it("tells the manager when the server sends notifications/tools/list_changed (server-everything adds its asking tools after initialize)", async () => {
    const { env, heard } = mcpEnv(everythingStdio(), { store, bus: rt.bus });
    track(await mcpKind.connect(env));
    await until("toolsChanged is called", () => heard.toolsChanged > 0);
  });

  it("refuses to connect to a command that does not exist, UNAVAILABLE, naming no environment value", async () => {
    const { env } = mcpEnv(
      { command: join(dir, "no-such-server"), env: { TOKEN: "resolved-secret-value" } },
      { store, bus: rt.bus },
    );
    const err = await mcpKind.connect(env).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as ToolError).kind).toBe("UNAVAILABLE");
    expect((err as ToolError).message).not.toContain("resolved-secret-value");
  });

  it("refuses to connect to a process that exits before initialize, UNAVAILABLE, without reporting a connection lost", async () => {
    const { env, heard } = mcpEnv(
      { command: process.execPath, args: ["-e", "process.exit(3)"] },
      { store, bus: rt.bus },
    );
    const err = await mcpKind.connect(env).catch((e: unknown) => e);
    expect((err as ToolError).kind).toBe("UNAVAILABLE");
    expect(heard.lost).toEqual([]);
  });

  it("logs the server's stderr lines through the connector's logger, never inheriting it", async () => {
    const { env, heard } = mcpEnv(
      { command: process.execPath, args: ["-e", "console.error('starting up'); process.exit(1)"] },
      { store, bus: rt.bus },
    );
    await mcpKind.connect(env).catch(() => {});
    await until("the stderr line is logged", () => heard.logLines.some((l) => l.includes("starting up")));
    const line = JSON.parse(heard.logLines.find((l) => l.includes("starting up"))!) as Record<string, unknown>;
    expect(line).toMatchObject({ msg: "starting up", connector: "up", stream: "stderr" });
  });

  it("writes and reads a file through server-filesystem on a temporary folder, and its refusal outside it is a failed UPSTREAM result", async () => {
    const conn = track(
      await mcpKind.connect(mcpEnv({ command: process.execPath, args: [FILESYSTEM, dir] }, { store, bus: rt.bus }).env),
    );
    const { tools } = await conn.list();
    expect(toolNamed(tools, "write_file").proposedTier).toBe("write");
    expect(toolNamed(tools, "read_text_file").proposedTier).toBe("read");
    const file = join(dir, "note.txt");
    const wrote = normalizeResult(
      "fs_write_file",
      await conn.call(
        toolNamed(tools, "write_file"),
        { path: file, content: "written through tai42" },
        upstreamCall(store),
      ),
    );
    expect(wrote.isError).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("written through tai42");
    const read = normalizeResult(
      "fs_read_text_file",
      await conn.call(toolNamed(tools, "read_text_file"), { path: file }, upstreamCall(store)),
    );
    expect(read.data).toEqual({ content: "written through tai42" });
    const outside = normalizeResult(
      "fs_read_text_file",
      await conn.call(toolNamed(tools, "read_text_file"), { path: "/etc/hostname" }, upstreamCall(store)),
    );
    expect(outside).toMatchObject({
      isError: true,
      errorKind: "UPSTREAM",
      errorMessage: expect.stringMatching(/Access denied/),
    });
  });
});
