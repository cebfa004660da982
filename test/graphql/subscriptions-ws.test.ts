import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { Client } from "graphql-ws";
import type { App } from "../../src/app.ts";
import type { RunEventRecord, RunRecord } from "../../src/dispatch/run-record.ts";
import { Bus, SubscriberOverflowError } from "../../src/events/bus.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { callerOf } from "../../src/auth/roles.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { collect, gatedApp, RUN_EVENTS, until, within, wsClient, wsUrl, type RunEventData } from "./support.ts";

interface Started {
  rt: TestRuntime;
  app: TaiServer;
  url: string;
}

// The subscribers here are anonymous: they see the runs started anonymously (docs/security-model.md §2).
const anonymousUser = callerOf("USER");

describe("subscriptions over graphql-ws (real sockets)", () => {
  let started: Started | undefined;
  const clients: Client[] = [];
  const sockets: WebSocket[] = [];

  async function start(env: NodeJS.ProcessEnv = {}, tools?: App): Promise<Started> {
    const rt = await testRuntime({ env, app: tools });
    const app = buildApp(rt);
    const url = await app.start(0, "127.0.0.1");
    started = { rt, app, url };
    return started;
  }

  function client(options: Parameters<typeof wsClient>[1] = {}): Client {
    const c = wsClient(started!.url, options);
    clients.push(c);
    return c;
  }

  afterEach(async () => {
    for (const c of clients.splice(0)) await c.dispose();
    for (const s of sockets.splice(0)) s.terminate();
    if (started) {
      await started.app.stop();
      await started.rt.dispose();
      started = undefined;
    }
  });

  const listeners = (topic: "runEvent" | "toolsChanged" = "runEvent") => started!.rt.bus.listenerCount(topic);
  const echo = (text: string) =>
    started!.rt.dispatcher.run({ tool: "echo", input: { text }, caller: anonymousUser, door: "runtime" });
  const seqs = (events: RunEventData[]) => events.map((e) => e.runEvents.seq);
  const expectIncreasing = (values: number[]) =>
    values.forEach((v, i) => i && expect(v).toBeGreaterThan(values[i - 1]));

  describe("runEvents", () => {
    it("should deliver RUN_STARTED then RUN_FINISHED for a dispatched run, with seq increasing", async () => {
      await start();
      const sub = collect<RunEventData>(client(), RUN_EVENTS);
      await until("the subscription to listen on the bus", () => listeners() === 1);
      const run = await echo("hello");
      const events = await sub.waitForData(2);
      expect(sub.errors).toEqual([]);
      expect(events.map((e) => e.runEvents.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
      expect(events.map((e) => e.runEvents.run.id)).toEqual([run.id, run.id]);
      expect(events.map((e) => e.runEvents.run.status)).toEqual(["RUNNING", "SUCCEEDED"]);
      expectIncreasing(seqs(events));
    });

    it("should replay persisted events after afterSeq, then continue live, each event once and in order", async () => {
      const { rt } = await start();
      const first = client();
      const sub = collect<RunEventData>(first, RUN_EVENTS);
      await until("the subscription to listen", () => listeners() === 1);
      await echo("a");
      const seen = await sub.waitForData(2);
      const lastSeq = seen[1].runEvents.seq;

      // Disconnect mid-stream; runs go on while nobody listens.
      await first.dispose();
      await until("the server to release the subscription", () => listeners() === 0);
      const b = await echo("b");
      const c = await echo("c");

      const resumed = collect<RunEventData>(client(), RUN_EVENTS, { afterSeq: lastSeq });
      const replayed = await resumed.waitForData(4);
      expect(replayed.map((e) => [e.runEvents.run.id, e.runEvents.type])).toEqual([
        [b.id, "RUN_STARTED"],
        [b.id, "RUN_FINISHED"],
        [c.id, "RUN_STARTED"],
        [c.id, "RUN_FINISHED"],
      ]);
      await until("the resumed subscription to listen live", () => listeners() === 1);
      const d = await echo("d");
      // A marker run published after d: a duplicate of any earlier event would arrive before its events.
      const marker = await echo("marker");
      const all = await resumed.waitForData(8);
      expect(resumed.errors).toEqual([]);
      const live = resumed.data.slice(4).map((e) => `${e.runEvents.run.id} ${e.runEvents.type}`);
      expect(live).toEqual([
        `${d.id} RUN_STARTED`,
        `${d.id} RUN_FINISHED`,
        `${marker.id} RUN_STARTED`,
        `${marker.id} RUN_FINISHED`,
      ]);
      expect(resumed.data).toHaveLength(8);
      expectIncreasing(seqs(all));
      expect(seqs(all)).toEqual((await rt.runs.events({}, lastSeq)).map((e) => e.seq));
    });

    it("should not lose or repeat an event published while the replay is being read", async () => {
      const { rt } = await start();
      for (let i = 0; i < 3; i++) await echo(`before-${i}`);
      // Slow the log read down so that live events land while the replay is in progress.
      const events = rt.runs.events.bind(rt.runs);
      let live: Promise<unknown> | undefined;
      rt.runs.events = async (...args) => {
        live ??= echo("during");
        await live;
        return events(...args);
      };
      const sub = collect<RunEventData>(client(), RUN_EVENTS, { afterSeq: 0 });
      await sub.waitForData(8);
      // A marker run published once the replay is read: a repeated event would arrive before its end.
      const marker = await echo("marker");
      await until(
        "the marker run's end",
        () =>
          sub.data.some((e) => e.runEvents.run.id === marker.id && e.runEvents.type === "RUN_FINISHED") ||
          sub.errors.length > 0,
      );
      expect(sub.errors).toEqual([]);
      const got = seqs(sub.data);
      expect(got).toEqual((await events({}, 0)).map((e) => e.seq));
      expect(new Set(got).size).toBe(got.length);
    });

    it("should deliver only the events of the tool it filters on", async () => {
      const { rt } = await start();
      const sub = collect<RunEventData>(client(), RUN_EVENTS, { tool: "calculate" });
      await until("the subscription to listen", () => listeners() === 1);
      await echo("not this one");
      const calc = await rt.dispatcher.run({
        tool: "calculate",
        input: { op: "add", a: 1, b: 2 },
        caller: anonymousUser,
        door: "runtime",
      });
      await echo("nor this one");
      // A marker run of the filtered tool, published last: a leaked echo event would arrive before it.
      const marker = await rt.dispatcher.run({
        tool: "calculate",
        input: { op: "add", a: 2, b: 2 },
        caller: anonymousUser,
        door: "runtime",
      });
      await sub.waitForData(4);
      const seen = sub.data.map((e) => `${e.runEvents.run.tool} ${e.runEvents.run.id} ${e.runEvents.type}`);
      expect(seen).toEqual([
        `calculate ${calc.id} RUN_STARTED`,
        `calculate ${calc.id} RUN_FINISHED`,
        `calculate ${marker.id} RUN_STARTED`,
        `calculate ${marker.id} RUN_FINISHED`,
      ]);
    });

    it("should deliver only the events of the run it filters on, replayed and live", async () => {
      // The filtered run ends only when released, after the other runs: a leaked event of theirs would arrive before
      // its end.
      const { app, release } = gatedApp();
      const { rt } = await start({}, app);
      const pending = rt.dispatcher.run({ tool: "gate", input: {}, caller: anonymousUser, door: "runtime" });
      let runId: string | undefined;
      await until("the gated run to start", async () =>
        Boolean((runId = (await rt.runs.list({ tool: "gate" }, 1))[0]?.id)),
      );
      await echo("other");
      const sub = collect<RunEventData>(client(), RUN_EVENTS, { runId, afterSeq: 0 });
      await sub.waitForData(1);
      await echo("another");
      release();
      await pending;
      await sub.waitForData(2);
      expect(sub.errors).toEqual([]);
      expect(sub.data.map((e) => [e.runEvents.run.id, e.runEvents.type])).toEqual([
        [runId, "RUN_STARTED"],
        [runId, "RUN_FINISHED"],
      ]);
    });
  });

  describe("authentication", () => {
    it("should refuse the socket with close code 4403 on connection_init with a bad key", async () => {
      await start();
      for (const authorization of ["Bearer tai_not_a_real_key", "Basic abc"]) {
        let closed: { code: number; reason: string } | undefined;
        const c = client({
          connectionParams: { authorization },
          on: { closed: (e) => (closed = e as { code: number; reason: string }) },
        });
        const sub = collect(c, RUN_EVENTS);
        await sub.waitForEnd();
        await until("the close event", () => closed !== undefined);
        expect(closed).toMatchObject({
          code: 4403,
          reason: expect.stringMatching(/^Forbidden: the (authorization value must be|API key is unknown)/),
        });
        expect(sub.data).toEqual([]);
        expect(listeners()).toBe(0);
      }
    });

    it("should identify the caller by connectionParams.authorization", async () => {
      const { rt } = await start({ TAI_ANONYMOUS_ROLE: "NONE" });
      const key = await rt.keys.create("dashboard", "READER");
      const c = client({ connectionParams: { authorization: `Bearer ${key}` } });
      const sub = collect<{ viewer: unknown }>(c, "query { viewer { role keyName authenticated } }");
      await sub.waitForEnd();
      expect(sub.errors).toEqual([]);
      expect(sub.data).toEqual([{ viewer: { role: "READER", keyName: "dashboard", authenticated: true } }]);
    });

    it("should close an open socket with 4403 when its key is revoked, and release its subscriptions", async () => {
      const { rt } = await start();
      const key = await rt.keys.create("dashboard", "USER");
      let closed: { code: number; reason: string } | undefined;
      const c = client({
        connectionParams: { authorization: `Bearer ${key}` },
        on: { closed: (e) => (closed = e as { code: number; reason: string }) },
      });
      const sub = collect<RunEventData>(c, RUN_EVENTS);
      await until("the subscription to listen", () => listeners() === 1);
      await rt.keys.revoke("dashboard");
      await sub.waitForEnd();
      await until("the close event", () => closed !== undefined);
      expect(closed).toEqual(expect.objectContaining({ code: 4403, reason: "Forbidden: the API key was revoked" }));
      await until("the server to release the subscription", () => listeners() === 0);

      let again: { code: number } | undefined;
      const retry = client({
        connectionParams: { authorization: `Bearer ${key}` },
        on: { closed: (e) => (again = e as { code: number }) },
      });
      await collect(retry, RUN_EVENTS).waitForEnd();
      await until("the close event", () => again !== undefined);
      expect(again!.code).toBe(4403);
    });

    it("should refuse a subscription by an anonymous caller with UNAUTHENTICATED when the anonymous role is NONE", async () => {
      await start({ TAI_ANONYMOUS_ROLE: "NONE" });
      const sub = collect(client(), RUN_EVENTS);
      await sub.waitForEnd();
      expect(sub.data).toEqual([]);
      expect(sub.errors).toHaveLength(1);
      expect(sub.errors[0]).toMatchObject({
        message: expect.stringContaining("authentication required"),
        extensions: { code: "UNAUTHENTICATED" },
      });
      expect(listeners()).toBe(0);
    });
  });

  describe("error masking", () => {
    it("should mask an unexpected error raised in a subscription stream", async () => {
      const { rt } = await start();
      rt.runs.events = async () => {
        throw new Error("replica db://admin:hunter2@10.0.0.7 is down");
      };
      const sub = collect(client(), RUN_EVENTS, { afterSeq: 0 });
      await sub.waitForEnd();
      expect(sub.errors).toHaveLength(1);
      expect(sub.errors[0]).toMatchObject({
        message: "Unexpected error.",
        extensions: { code: "INTERNAL_SERVER_ERROR" },
      });
      expect(JSON.stringify(sub.errors)).not.toContain("hunter2");
      await until("the server to release the subscription", () => listeners() === 0);
    });

    it("should mask an unexpected error raised in a query resolver", async () => {
      const { rt } = await start();
      rt.runs.get = async () => {
        throw new Error("replica db://admin:hunter2@10.0.0.7 is down");
      };
      const sub = collect(client(), 'query { run(id: "x") { id } }');
      await sub.waitForEnd();
      expect(sub.errors).toEqual([
        {
          message: "Unexpected error.",
          path: ["run"],
          locations: expect.any(Array),
          extensions: { code: "INTERNAL_SERVER_ERROR" },
        },
      ]);
    });

    it("should pass a client's mistake through unmasked: a syntax error names what is wrong", async () => {
      await start();
      const sub = collect(client(), "subscription { runEvents { seq ");
      await sub.waitForEnd();
      expect(sub.errors).toHaveLength(1);
      expect(sub.errors[0]).toMatchObject({ message: expect.stringMatching(/^Syntax Error: /) });
    });
  });

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
      started = { rt, app, url: await app.start(0, "127.0.0.1") };
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
