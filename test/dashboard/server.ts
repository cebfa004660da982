import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { z } from "zod";
import { App } from "../../src/app.ts";
import type { Config } from "../../src/config.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/** A real server on a free loopback port, over a fresh database, with the demo tools. */
export interface TestServer {
  rt: TestRuntime;
  app: TaiServer;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /**
   * Cuts every WebSocket the server has accepted so far, as a network failure would; returns how many it accepted in
   * all.
   */
  dropConnections(): number;
  /** How many WebSocket connections the server has accepted. */
  connections(): number;
  /** Sends one GraphQL request over HTTP as `key` (anonymous without), as another client would. */
  gql<T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    key?: string,
  ): Promise<{ data?: T; errors?: { message: string; extensions?: Record<string, unknown> }[] }>;
  stop(): Promise<void>;
}

export async function startServer(
  options: { app?: App; config?: Partial<Config>; env?: NodeJS.ProcessEnv; port?: number } = {},
): Promise<TestServer> {
  const rt = await testRuntime({ app: options.app ?? new App(), config: options.config, env: options.env });
  const app = buildApp(rt);
  const url = await app.start(options.port ?? 0, "127.0.0.1");
  const origin = new URL(url).origin;
  const sockets: Socket[] = [];
  app.server.on("upgrade", (_req, socket: Socket) => sockets.push(socket));
  return {
    rt,
    app,
    origin,
    dropConnections() {
      for (const s of sockets) s.destroy();
      return sockets.length;
    },
    connections: () => sockets.length,
    async gql(query, variables, key) {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify({ query, variables }),
      });
      return (await res.json()) as never;
    },
    async stop() {
      await app.stop();
      await rt.dispose();
    },
  };
}

/** A free loopback port (for a server whose origin must be known before it starts: an issuer's redirect URIs). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

/**
 * A tool each of whose runs waits until the test releases it: the test sees a run
 * RUNNING for as long as it wants, with no timing involved.
 */
export function gatedTool(app: App, name = "gated_step"): { release(): void; started(): number } {
  const waiting: (() => void)[] = [];
  let released = 0;
  let count = 0;
  app.tool(
    {
      name,
      label: "Gated step",
      description: "Waits until the test lets it finish, then echoes its label.",
      input: z.object({ label: z.string() }),
    },
    async ({ label }, ctx) => {
      count++;
      if (released > 0) released--;
      else {
        await new Promise<void>((resolve, reject) => {
          waiting.push(resolve);
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
        });
      }
      return { label };
    },
  );
  return {
    release() {
      const next = waiting.shift();
      if (next) next();
      else released++;
    },
    started: () => count,
  };
}
