import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";

/**
 * Long-lived streams behind a load balancer (docs/deploy.md §"The load balancer"): an idle
 * graphql-ws socket and an idle SSE subscription both see traffic at least every 12 s, so
 * an idle timeout longer than that never cuts them.
 */
const PING_MS = 12_000;

describe("idle streams", () => {
  let rt: TestRuntime | undefined;
  let server: TaiServer | undefined;
  afterEach(async () => {
    await server?.stop();
    await rt?.dispose();
    rt = server = undefined;
  });

  it("should ping an idle graphql-ws socket and send an idle SSE stream a comment within 12 s", async () => {
    rt = await testRuntime();
    server = buildApp(rt);
    const url = await server.start(0, "127.0.0.1");

    const socket = new WebSocket(url.replace(/^http/, "ws"), "graphql-transport-ws");
    const pings: number[] = [];
    socket.on("ping", () => pings.push(Date.now()));
    await new Promise<void>((r) => socket.once("open", () => r()));
    socket.send(JSON.stringify({ type: "connection_init" }));
    await new Promise<void>((r) => socket.once("message", () => r()));
    const opened = Date.now();

    const sse = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ query: "subscription { toolsChanged { name } }" }),
    });
    const reader = sse.body!.getReader();
    const comments: number[] = [];
    const pump = (async () => {
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
        if (done) return;
        // ":" lines are SSE comments: the server's keep-alive.
        for (const line of decoder.decode(value).split("\n")) if (line.startsWith(":")) comments.push(Date.now());
      }
    })();

    await until(
      "a ping and a later keep-alive comment",
      () => pings.length > 0 && comments.some((t) => t > opened + 1000),
      PING_MS + 3000,
    );
    expect(pings[0] - opened).toBeLessThanOrEqual(PING_MS + 1000);
    socket.terminate();
    await reader.cancel();
    await pump;
  }, 30_000);
});
