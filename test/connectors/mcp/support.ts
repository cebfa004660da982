import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:http";
import { resolve } from "node:path";
import { as } from "../../helpers/runtime.ts";
import { freePort } from "../../helpers/cli.ts";
import { createLogger } from "../../../src/log.ts";
import type { Bus } from "../../../src/events/bus.ts";
import type { ExpiringStore } from "../../../src/db/expiring-store.ts";
import type { ConnectorEnv, UpstreamCall, UpstreamTool } from "../../../src/connectors/connector-kind.ts";
import type { McpSettings } from "../../../src/connectors/mcp/mcp-settings.ts";
import type { ToolUpdate } from "../../../src/tools/tool-update.ts";

/** The MCP servers no one here wrote, run with this Node. */
export const EVERYTHING = resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const FILESYSTEM = resolve("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");

/** What the connection told its manager. */
export interface Heard {
  lost: Error[];
  toolsChanged: number;
  logLines: string[];
}

/** A `ConnectorEnv` as the connection manager builds one, over a real store and bus. */
export function mcpEnv(
  settings: McpSettings,
  shared: { store: ExpiringStore; bus: Bus; instanceId?: string; canPark?: boolean; name?: string },
): { env: ConnectorEnv<McpSettings>; heard: Heard } {
  const heard: Heard = { lost: [], toolsChanged: 0, logLines: [] };
  const env: ConnectorEnv<McpSettings> = {
    name: shared.name ?? "up",
    settings,
    log: createLogger({}, (line) => heard.logLines.push(line)),
    fetch: globalThis.fetch,
    toolsChanged: () => heard.toolsChanged++,
    lost: (e) => heard.lost.push(e),
    canPark: shared.canPark ?? true,
    store: shared.store,
    bus: shared.bus,
    instanceId: shared.instanceId ?? "instance-a",
  };
  return { env, heard };
}

/** The stdio settings of server-everything. */
export const everythingStdio = (extra: Partial<McpSettings> = {}): McpSettings => ({
  command: process.execPath,
  args: [EVERYTHING, "stdio"],
  ...extra,
});

/** An attempt's call: its own signal, progress collected, idempotency key. */
export function upstreamCall(
  store: ExpiringStore,
  opts: { timeoutMs?: number; runId?: string; idempotencyKey?: string } = {},
): UpstreamCall & { controller: AbortController; updates: ToolUpdate[] } {
  const controller = new AbortController();
  const updates: ToolUpdate[] = [];
  const runId = opts.runId ?? `run-${Math.random().toString(36).slice(2)}`;
  const log = { info() {}, warn() {}, error() {} };
  return {
    controller,
    updates,
    idempotencyKey: opts.idempotencyKey ?? runId,
    idempotent: false,
    timeoutMs: opts.timeoutMs ?? 20_000,
    ctx: {
      signal: controller.signal,
      runId,
      attempt: 1,
      caller: as("ADMIN"),
      log,
      redact() {},
      store,
      runTool: () => Promise.reject(new Error("no child runs here")),
      openInteraction: () => Promise.reject(new Error("no interactions here")),
      onUpdate: (u) => void updates.push(u),
    },
  };
}

/** The listed tool named `name` (a call names the stored listing's tool). */
export function toolNamed(tools: UpstreamTool[], name: string): UpstreamTool {
  const t = tools.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name} in ${tools.map((x) => x.name).join(", ")}`);
  return t;
}

/** server-everything over Streamable HTTP on a free port; resolves once it listens. */
export async function startEverythingHttp(
  onPort?: number,
): Promise<{ url: string; port: number; child: ChildProcess; stop: () => Promise<void> }> {
  const port = onPort ?? (await freePort());
  const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    env: { PATH: process.env.PATH, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error("server-everything did not listen within 20 s")), 20_000);
    let text = "";
    child.stderr!.on("data", (c: Buffer) => {
      text += c.toString();
      if (text.includes("listening on port")) {
        clearTimeout(timer);
        ok();
      }
    });
    child.once("exit", (code) => fail(new Error(`server-everything exited (${code}): ${text}`)));
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await exited;
  };
  return { url: `http://127.0.0.1:${port}/mcp`, port, child, stop };
}

/** The ids of this test process's server-everything children (one per stdio connection). */
export function everythingPids(): number[] {
  return execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)], { encoding: "utf8" })
    .split("\n")
    .filter((l) => l.includes(EVERYTHING))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

/**
 * An HTTP proxy in front of a Streamable HTTP MCP server that records every JSON-RPC message sent to it, the server's
 * answers (SSE streams included) passed back as they come.
 */
export async function recordingProxy(
  target: string,
): Promise<{ url: string; sent: Array<{ method?: string; params?: { name?: string } }>; close(): Promise<void> }> {
  const sent: Array<{ method?: string; params?: { name?: string } }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      if (body.length) sent.push(...([JSON.parse(body.toString("utf8"))].flat() as typeof sent));
      const upstream = new AbortController();
      res.on("close", () => upstream.abort());
      const headers = Object.entries(req.headers).filter(
        (h): h is [string, string] =>
          typeof h[1] === "string" && !["host", "connection", "content-length"].includes(h[0]),
      );
      void (async () => {
        const answer = await fetch(target, {
          method: req.method,
          headers,
          body: body.length ? body : undefined,
          signal: upstream.signal,
        });
        const kept = [...answer.headers].filter(([k]) => !["content-length", "content-encoding"].includes(k));
        res.writeHead(answer.status, Object.fromEntries(kept));
        const reader = answer.body?.getReader();
        for (let c = await reader?.read(); c && !c.done; c = await reader!.read()) res.write(c.value);
        res.end();
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sent,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
