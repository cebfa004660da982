import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { RunEventRecord, RunRecord } from "../../src/dispatch/run-record.ts";
import { Bus, SubscriberOverflowError } from "../../src/events/bus.ts";
import { buildApp } from "../../src/server/build-app.ts";
import { testRuntime } from "../helpers/runtime.ts";
import { collect, RUN_EVENTS, until, within, wsUrl, type RunEventData } from "./support.ts";
import { wsHarness } from "./ws-harness.ts";

describe("subscriptions over graphql-ws (real sockets)", () => {
  const h = wsHarness();
  const { start, client, sockets, listeners, echo, expectIncreasing } = h;

  describe("slow subscribers", () => {
    it("should close a Bus subscriber that falls behind its buffer, drop its listener and not throw at the publisher", async () => {
      const bus = new Bus();
      const it = bus.subscribe("toolsChanged", { bufferSize: 2 });
      expect(bus.listenerCount("toolsChanged")).toBe(1);
      for (let i = 0; i < 5; i++) bus.publish("toolsChanged", { at: String(i) });
      expect(bus.listenerCount("toolsChanged")).toBe(0);
      await expect(it.next()).rejects.toBeInstanceOf(SubscriberOverflowError);
      await expect(it.next()).resolves.toEqual({ value: undefined, done: true });
      await bus.close();
    });

    it("should close a stalled graphql-ws subscriber with SUBSCRIBER_LAGGING carrying afterSeq, without crashing the server", async () => {
      const { rt, url } = await start();
      const ws = new WebSocket(wsUrl(url), "graphql-transport-ws");
      sockets.push(ws);
      const messages: { type: string; id?: string; payload?: unknown }[] = [];
      ws.on("message", (m) => messages.push(JSON.parse(String(m))));
      await within("the socket to open", new Promise((r) => ws.once("open", r)));
      ws.send(JSON.stringify({ type: "connection_init" }));
      await until("connection_ack", () => messages.some((m) => m.type === "connection_ack"));
      ws.send(
        JSON.stringify({
          id: "1",
          type: "subscribe",
          payload: { query: "subscription { runEvents { seq run { input } } }" },
        }),
      );
      await until("the subscription to listen", () => listeners() === 1);

      // Stop reading: the kernel buffers fill, the server's sends stall, and events queue
      // up for this subscriber until its bounded buffer overflows.
      (ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
      const run = {
        id: "fake",
        tool: "echo",
        status: "RUNNING",
        tier: "read",
        callerKey: null,
        callerKeyId: null,
        input: { text: "x".repeat(64 * 1024) },
      } as unknown as RunRecord;
      let seq = 0;
      const deadline = Date.now() + 20_000;
      while (listeners() === 1) {
        if (Date.now() > deadline) throw new Error(`the subscriber was not closed after ${seq} events`);
        for (let i = 0; i < 50; i++) {
          seq++;
          rt.bus.publish("runEvent", {
            seq,
            type: "RUN_STARTED",
            at: new Date().toISOString(),
            runId: run.id,
            tool: run.tool,
            run,
          } satisfies RunEventRecord);
        }
        await new Promise((r) => setImmediate(r));
      }
      expect(seq).toBeGreaterThan(1000);

      // The server still answers others while that socket is stalled.
      const viewer = collect<{ viewer: { role: string } }>(client(), "query { viewer { role } }");
      expect(await viewer.waitForData(1)).toEqual([{ viewer: { role: "USER" } }]);

      (ws as unknown as { _socket: { resume(): void } })._socket.resume();
      await until("the lagging error", () => messages.some((m) => m.type === "error"), 15_000);
      const delivered = messages
        .filter((m) => m.type === "next")
        .map((m) => (m.payload as { data: { runEvents: { seq: number } } }).data.runEvents.seq);
      const error = messages.find((m) => m.type === "error")!;
      const [lag] = error.payload as { message: string; extensions: { code: string; afterSeq: number } }[];
      expect(lag.extensions.code).toBe("SUBSCRIBER_LAGGING");
      expect(lag.extensions.afterSeq).toBe(delivered.at(-1));
      expect(lag.message).toContain(`afterSeq: ${delivered.at(-1)}`);
      expect(delivered.length).toBeLessThan(seq);
      expectIncreasing(delivered);
    });
  });

  describe("limits", () => {
    it("should close a socket that sends a message larger than the body limit with 1009", async () => {
      const rt = await testRuntime({ config: { maxBodyBytes: 4096 } });
      const app = buildApp(rt);
      const started = (h.started = { rt, app, url: await app.start(0, "127.0.0.1") });
      const ws = new WebSocket(wsUrl(started.url), "graphql-transport-ws");
      sockets.push(ws);
      await within("the socket to open", new Promise((r) => ws.once("open", r)));
      const closed = new Promise<number>((r) => ws.once("close", (code) => r(code)));
      ws.send(JSON.stringify({ type: "connection_init", payload: { padding: "x".repeat(10_000) } }));
      expect(await within("the socket to close", closed)).toBe(1009);
    });
  });

  describe("shutdown", () => {
    it("should stop promptly while a client has stopped reading, cutting that client off", async () => {
      const { app, url } = await start();
      const ws = new WebSocket(wsUrl(url), "graphql-transport-ws");
      sockets.push(ws);
      const acked = new Promise<void>((r) =>
        ws.on("message", (m) => JSON.parse(String(m)).type === "connection_ack" && r()),
      );
      await within("the socket to open", new Promise((r) => ws.once("open", r)));
      ws.send(JSON.stringify({ type: "connection_init" }));
      await within("connection_ack", acked);
      ws.send(JSON.stringify({ id: "1", type: "subscribe", payload: { query: "subscription { runEvents { seq } }" } }));
      await until("the subscription to listen", () => listeners() === 1);
      (ws as unknown as { _socket: { pause(): void } })._socket.pause();
      const closed = new Promise<void>((r) => ws.once("close", () => r()));
      const t0 = Date.now();
      await within("the server to stop", app.stop(), 5000);
      expect(Date.now() - t0).toBeLessThan(3000);
      expect(listeners()).toBe(0);
      (ws as unknown as { _socket: { resume(): void } })._socket.resume();
      await within("the stalled client to see the close", closed);
    });

    it("should close open sockets with 1001 when the server stops", async () => {
      const { app } = await start();
      let closed: { code: number } | undefined;
      const c = client({ on: { closed: (e) => (closed = e as { code: number }) } });
      const sub = collect(c, RUN_EVENTS);
      await until("the subscription to listen", () => listeners() === 1);
      await within("the server to stop", app.stop());
      await sub.waitForEnd();
      await until("the close event", () => closed !== undefined);
      expect(closed!.code).toBe(1001);
      expect(listeners()).toBe(0);
    });
  });

  describe("cleanup", () => {
    it("should release every server-side bus listener when a client disconnects", async () => {
      await start();
      const baseline = { runEvent: listeners(), toolsChanged: listeners("toolsChanged") };
      const c = client();
      collect(c, RUN_EVENTS);
      collect(c, RUN_EVENTS, { afterSeq: 0 });
      collect(c, "subscription { toolsChanged { name } }");
      await until(
        "three subscriptions to listen",
        () => listeners() === baseline.runEvent + 2 && listeners("toolsChanged") === baseline.toolsChanged + 1,
      );
      await c.dispose();
      await until(
        "the listeners to be released",
        () => listeners() === baseline.runEvent && listeners("toolsChanged") === baseline.toolsChanged,
      );
    });

    it("should release the listener when the client completes a subscription but keeps the socket", async () => {
      await start();
      const c = client();
      const keep = collect<RunEventData>(c, RUN_EVENTS, { tool: "echo" });
      const drop = collect(c, RUN_EVENTS, { tool: "calculate" });
      await until("two subscriptions to listen", () => listeners() === 2);
      drop.stop();
      await until("the completed one to be released", () => listeners() === 1);
      await echo("still here");
      expect(await keep.waitForData(2)).toHaveLength(2);
    });

    it("should release the listener when the socket drops without a close frame", async () => {
      const { url } = await start();
      const ws = new WebSocket(wsUrl(url), "graphql-transport-ws");
      sockets.push(ws);
      const acked = new Promise<void>((r) =>
        ws.on("message", (m) => JSON.parse(String(m)).type === "connection_ack" && r()),
      );
      await within("the socket to open", new Promise((r) => ws.once("open", r)));
      ws.send(JSON.stringify({ type: "connection_init" }));
      await within("connection_ack", acked);
      ws.send(JSON.stringify({ id: "1", type: "subscribe", payload: { query: "subscription { runEvents { seq } }" } }));
      await until("the subscription to listen", () => listeners() === 1);
      ws.terminate();
      await until("the listener to be released", () => listeners() === 0);
    });
  });
});
