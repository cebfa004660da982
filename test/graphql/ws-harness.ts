import { afterEach, expect } from "vitest";
import type WebSocket from "ws";
import type { Client } from "graphql-ws";
import type { App } from "../../src/app.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { callerOf } from "../../src/auth/roles.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { wsClient, type RunEventData } from "./support.ts";

/** A started server for a graphql-ws test: its runtime, its server and its URL. */
export interface Started {
  rt: TestRuntime;
  app: TaiServer;
  url: string;
}

// The subscribers here are anonymous: they see the runs started anonymously (docs/security-model.md §2).
export const anonymousUser = callerOf("USER");

/**
 * The shared setup of the graphql-ws tests over real sockets: call it inside a describe; it starts
 * servers on demand and, after each test, disposes of their clients, sockets, server and runtime.
 */
export function wsHarness() {
  const clients: Client[] = [];
  const h = {
    started: undefined as Started | undefined,
    sockets: [] as WebSocket[],
    async start(env: NodeJS.ProcessEnv = {}, tools?: App): Promise<Started> {
      const rt = await testRuntime({ env, app: tools });
      const app = buildApp(rt);
      const url = await app.start(0, "127.0.0.1");
      h.started = { rt, app, url };
      return h.started;
    },
    client(options: Parameters<typeof wsClient>[1] = {}): Client {
      const c = wsClient(h.started!.url, options);
      clients.push(c);
      return c;
    },
    listeners: (topic: "runEvent" | "toolsChanged" = "runEvent") => h.started!.rt.bus.listenerCount(topic),
    echo: (text: string) =>
      h.started!.rt.dispatcher.run({ tool: "echo", input: { text }, caller: anonymousUser, door: "runtime" }),
    seqs: (events: RunEventData[]) => events.map((e) => e.runEvents.seq),
    expectIncreasing: (values: number[]) => values.forEach((v, i) => i && expect(v).toBeGreaterThan(values[i - 1])),
  };

  afterEach(async () => {
    for (const c of clients.splice(0)) await c.dispose();
    for (const s of h.sockets.splice(0)) s.terminate();
    if (h.started) {
      await h.started.app.stop();
      await h.started.rt.dispose();
      h.started = undefined;
    }
  });

  return h;
}
