import WebSocket from "ws";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { within } from "../graphql/support.ts";

/** A listening server over a fresh runtime, for tests over real sockets. */
export interface Started {
  rt: TestRuntime;
  app: TaiServer;
  /** http://127.0.0.1:<port>/graphql */
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startServer(env: NodeJS.ProcessEnv = {}): Promise<Started> {
  const rt = await testRuntime({ env });
  const app = buildApp(rt);
  const url = await app.start(0, "127.0.0.1");
  return {
    rt,
    app,
    url,
    port: Number(new URL(url).port),
    async stop() {
      await app.stop();
      await rt.dispose();
    },
  };
}

/** Parsed log lines of a test runtime. */
export const logs = (rt: TestRuntime) =>
  rt.logLines.map((l) => JSON.parse(l) as { level: string; msg: string } & Record<string, unknown>);

/**
 * What a raw graphql-transport-ws handshake came to: acknowledged, refused before the upgrade (HTTP status), or closed.
 */
export type Handshake = { ack: true; socket: WebSocket } | { status: number } | { closed: number; reason: string };

/**
 * Opens a raw socket with `options` (origin, headers), sends connection_init with `payload`, and reports what happened.
 */
export function handshake(
  url: string,
  payload: unknown = {},
  options: WebSocket.ClientOptions = {},
): Promise<Handshake> {
  const socket = new WebSocket(url.replace(/^http/, "ws"), "graphql-transport-ws", options);
  return within(
    "the handshake to settle",
    new Promise<Handshake>((resolve, reject) => {
      socket.on("unexpected-response", (_req, res) => {
        resolve({ status: res.statusCode ?? 0 });
        socket.terminate();
      });
      socket.on("open", () => socket.send(JSON.stringify({ type: "connection_init", payload })));
      socket.on("message", (m) => {
        if (JSON.parse(String(m)).type === "connection_ack") resolve({ ack: true, socket });
      });
      socket.on("close", (code, reason) => resolve({ closed: code, reason: String(reason) }));
      socket.on("error", (e) => (String(e.message).includes("Unexpected server response") ? undefined : reject(e)));
    }),
  );
}
