import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { callerOf } from "../../../src/auth/roles.ts";
import type { ConnectorEnv, UpstreamCall } from "../../../src/connectors/connector-kind.ts";
import { Bus } from "../../../src/events/bus.ts";
import { createLogger } from "../../../src/log.ts";
import type { ToolContext } from "../../../src/tools/definition.ts";

/** One request the upstream received. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  /** When it arrived (ms since the epoch). */
  at: number;
}

export interface Upstream {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

type Handler = (req: Received, res: ServerResponse) => void;

/** A real HTTP server on 127.0.0.1, port 0, recording every request and answering with `handler`. */
export async function startUpstream(handler: Handler): Promise<Upstream> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      received.push(r);
      handler(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(value));
}

/**
 * The environment the core hands a kind, built here with the plain `fetch` until the guarded fetch lands. The kind uses
 * no store.
 */
export function connectorEnv<S>(settings: S, fetchFn: typeof fetch = globalThis.fetch): ConnectorEnv<S> {
  return {
    name: "svc",
    settings,
    log: createLogger({}, () => undefined),
    fetch: fetchFn,
    toolsChanged() {},
    lost() {},
    canPark: false,
    store: {
      get: () => Promise.reject(new Error("the openapi kind reads no store")),
      set: () => Promise.reject(new Error("the openapi kind writes no store")),
    },
    bus: new Bus(),
    instanceId: "test-instance",
  };
}

/** One attempt's call: a real AbortController, the secrets the call registers kept in `redacted`. */
export function upstreamCall(
  options: { idempotencyKey?: string; timeoutMs?: number; signal?: AbortSignal } = {},
): UpstreamCall & { redacted: string[] } {
  const redacted: string[] = [];
  const ctx: ToolContext = {
    signal: options.signal ?? new AbortController().signal,
    runId: "run-1",
    attempt: 1,
    caller: callerOf("ADMIN", "test-admin", "key-admin"),
    log: { info() {}, warn() {}, error() {} },
    redact: (s) => void redacted.push(s),
    runTool: () => Promise.reject(new Error("no nested runs here")),
    store: { get: () => Promise.reject(new Error("no store")), set: () => Promise.reject(new Error("no store")) },
    openInteraction: () => Promise.reject(new Error("no interactions here")),
    onUpdate() {},
  };
  return {
    ctx,
    idempotencyKey: options.idempotencyKey ?? "key-123",
    idempotent: false,
    timeoutMs: options.timeoutMs ?? 5000,
    redacted,
  };
}
