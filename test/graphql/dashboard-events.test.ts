import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { collect, RUN_EVENTS, sseReader, until, within, wsClient, type RunEventData } from "./support.ts";

const DISPATCH_FLAKY = `mutation { dispatch(input: { tool: "flaky", input: { failures: 2 } }) { id status attempts { number errorKind waitSeconds } } }`;
const EXPECTED = ["RUN_STARTED", "ATTEMPT_FAILED", "ATTEMPT_FAILED", "RUN_FINISHED"];

/** A dashboard watching the demo `flaky` tool (unavailable twice, then answers). */
describe("a runEvents dashboard over real sockets", () => {
  let rt: TestRuntime;
  let server: TaiServer;
  let url: string;

  beforeEach(async () => {
    rt = await testRuntime();
    server = buildApp(rt);
    url = await server.start(0, "127.0.0.1");
  });
  afterEach(async () => {
    await server.stop();
    await rt.dispose();
  });

  const dispatchOverHttp = async () => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: DISPATCH_FLAKY }),
    });
    return (
      (await res.json()) as {
        data: {
          dispatch: {
            id: string;
            status: string;
            attempts: { number: number; errorKind: string | null; waitSeconds: number | null }[];
          };
        };
      }
    ).data.dispatch;
  };

  it("should see RUN_STARTED, ATTEMPT_FAILED, ATTEMPT_FAILED and RUN_FINISHED in order over graphql-ws, and replay exactly what it missed with afterSeq", async () => {
    const client = wsClient(url);
    try {
      const live = collect<RunEventData>(client, RUN_EVENTS, { tool: "flaky" });
      await until("the subscription to listen", () => rt.bus.listenerCount("runEvent") >= 1);
      const run = await dispatchOverHttp();
      expect(run.status).toBe("SUCCEEDED");
      expect(run.attempts.map((a) => a.errorKind)).toEqual(["UNAVAILABLE", "UNAVAILABLE", null]);
      const events = (await live.waitForData(4)).map((d) => d.runEvents);
      expect(events.map((e) => e.type)).toEqual(EXPECTED);
      expect(events.every((e) => e.run.id === run.id)).toBe(true);
      expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((a, b) => a - b));
      live.stop();

      // A dashboard that saw only the first event reconnects and gets exactly the rest.
      const replay = collect<RunEventData>(client, RUN_EVENTS, { tool: "flaky", afterSeq: events[0].seq });
      const missed = (await replay.waitForData(3)).map((d) => d.runEvents);
      // A marker run started afterwards: a repeated event would arrive before its first one.
      const marker = dispatchOverHttp();
      await until("the marker run's first event", () => replay.data.some((d) => d.runEvents.run.id !== run.id));
      const beforeMarker = replay.data.slice(
        0,
        replay.data.findIndex((d) => d.runEvents.run.id !== run.id),
      );
      expect(beforeMarker.map((d) => [d.runEvents.seq, d.runEvents.type])).toEqual(missed.map((e) => [e.seq, e.type]));
      await marker;
      expect(missed.map((e) => [e.seq, e.type])).toEqual(events.slice(1).map((e) => [e.seq, e.type]));
      replay.stop();
    } finally {
      await client.dispose();
    }
  });

  it("should see the same four events in order over SSE", async () => {
    const abort = new AbortController();
    try {
      const res = await within(
        "the SSE response",
        fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/event-stream" },
          body: JSON.stringify({ query: RUN_EVENTS, variables: { tool: "flaky" } }),
          signal: abort.signal,
        }),
      );
      const stream = sseReader(res);
      await until("the subscription to listen", () => rt.bus.listenerCount("runEvent") >= 1);
      const run = await dispatchOverHttp();
      await until("four events", () => stream.nexts().length >= 4);
      const events = stream.nexts<RunEventData>().map((e) => e.data!.runEvents);
      expect(events.map((e) => e.type)).toEqual(EXPECTED);
      expect(events.every((e) => e.run.id === run.id)).toBe(true);
      await stream.cancel();
    } finally {
      abort.abort();
    }
  });
});
