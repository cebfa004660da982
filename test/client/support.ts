import type { Socket } from "node:net";
import type { App } from "../../src/app.ts";
import { callerOf } from "../../src/auth/roles.ts";
import { createTaiClient, type TaiClient, type TaiClientOptions } from "../../src/client/index.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import type { Config } from "../../src/config.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/** Both subscription transports: every behaviour test runs over each. */
export const TRANSPORTS = ["ws", "sse"] as const;

/** A tai42 server listening on a real port, with its TCP connections in reach. */
export interface ServerUnderTest {
  rt: TestRuntime;
  url: string;
  /** TCP connections accepted so far (WebSocket upgrades and SSE requests included). */
  readonly connections: number;
  /** Cuts every open connection from the server side, as a crash or a proxy would: no close frame, no end of stream. */
  dropConnections(): number;
  /** Stops the HTTP server: WebSockets close with 1001, SSE streams are cut, new connections are refused. */
  down(): Promise<void>;
  /** Starts a new HTTP server on the same port, over the same runtime. */
  up(): Promise<void>;
  /** Clients made with {@link ServerUnderTest.client} are closed by {@link ServerUnderTest.stop}. */
  client(options?: Partial<TaiClientOptions>): TaiClient;
  stop(): Promise<void>;
}

/** Retries fast in tests, with room for a restart. */
export const FAST_RETRY = { attempts: 20, delayMs: () => 20 };

export async function startServer(options: { config?: Partial<Config>; app?: App } = {}): Promise<ServerUnderTest> {
  const rt = await testRuntime({ config: options.config, app: options.app });
  const sockets = new Set<Socket>();
  let connections = 0;
  let app: TaiServer | undefined;
  let port = 0;
  const listen = async () => {
    app = buildApp(rt);
    app.server.on("connection", (socket: Socket) => {
      connections++;
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
    });
    const url = await app.start(port, "127.0.0.1");
    port = Number(new URL(url).port);
    return url;
  };
  const url = await listen();
  const clients: TaiClient[] = [];
  return {
    rt,
    url,
    get connections() {
      return connections;
    },
    dropConnections() {
      const n = sockets.size;
      for (const s of sockets) s.destroy();
      return n;
    },
    async down() {
      await app?.stop();
      app = undefined;
    },
    async up() {
      await listen();
    },
    client(extra = {}) {
      const c = createTaiClient({ url, retry: FAST_RETRY, ...extra });
      clients.push(c);
      return c;
    },
    async stop() {
      for (const c of clients.splice(0)) await c.close();
      await app?.stop();
      await rt.dispose();
    },
  };
}

/** Anonymous callers on a loopback bind are USER; an anonymous subscriber sees the anonymous runs. */
export const anonymousUser = callerOf("USER");

/** Runs `echo` in-process, as an anonymous caller. */
export const echo = (rt: TestRuntime, text: string) =>
  rt.dispatcher.run({ tool: "echo", input: { text }, caller: anonymousUser, door: "runtime" });

/** Resolves when `check` holds, polling; rejects naming `what` after `timeoutMs`. */
export { until, within } from "../graphql/support.ts";
