import { describe, expect, it } from "vitest";
import { collect, gatedApp, RUN_EVENTS, until, type RunEventData } from "./support.ts";
import { anonymousUser, wsHarness } from "./ws-harness.ts";

describe("subscriptions over graphql-ws (real sockets)", () => {
  const h = wsHarness();
  const { start, client, listeners, echo, seqs, expectIncreasing } = h;

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
});
