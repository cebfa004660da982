import { afterEach, describe, expect, it } from "vitest";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { callerOf } from "../../src/auth/roles.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { RUN_EVENTS, sseReader, until, within, type RunEventData } from "./support.ts";

// The subscribers here are anonymous: they see the runs started anonymously (docs/security-model.md §2).
const anonymousUser = callerOf("USER");

describe("subscriptions over SSE (real listening server)", () => {
  let rt: TestRuntime | undefined;
  let app: TaiServer | undefined;
  let url: string;
  const aborts: AbortController[] = [];

  async function start(env: NodeJS.ProcessEnv = {}): Promise<TestRuntime> {
    rt = await testRuntime({ env });
    app = buildApp(rt);
    url = await app.start(0, "127.0.0.1");
    return rt;
  }

  async function subscribe(
    query: string,
    variables: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    const abort = new AbortController();
    aborts.push(abort);
    const res = await within(
      "the SSE response",
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
        body: JSON.stringify({ query, variables }),
        signal: abort.signal,
      }),
    );
    return { res, stream: sseReader(res), abort };
  }

  afterEach(async () => {
    for (const a of aborts.splice(0)) a.abort();
    await app?.stop();
    await rt?.dispose();
    app = rt = undefined;
  });

  const listeners = () => rt!.bus.listenerCount("runEvent");

  it("should stream RUN_STARTED and RUN_FINISHED for a dispatch as text/event-stream", async () => {
    await start();
    const { res, stream } = await subscribe(RUN_EVENTS);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    await until("the subscription to listen on the bus", () => listeners() === 1);
    const run = await rt!.dispatcher.run({
      tool: "echo",
      input: { text: "over sse" },
      caller: anonymousUser,
      door: "runtime",
    });
    await until("two events", () => stream.nexts().length >= 2);
    const events = stream.nexts<RunEventData>();
    expect(events.every((e) => e.errors === undefined)).toBe(true);
    expect(events.map((e) => [e.data!.runEvents.type, e.data!.runEvents.run.id, e.data!.runEvents.run.status])).toEqual(
      [
        ["RUN_STARTED", run.id, "RUNNING"],
        ["RUN_FINISHED", run.id, "SUCCEEDED"],
      ],
    );
    expect(events[1].data!.runEvents.seq).toBeGreaterThan(events[0].data!.runEvents.seq);
  });

  it("should replay from afterSeq over SSE as it does over graphql-ws", async () => {
    await start();
    const a = await rt!.dispatcher.run({ tool: "echo", input: { text: "a" }, caller: anonymousUser, door: "runtime" });
    const b = await rt!.dispatcher.run({ tool: "echo", input: { text: "b" }, caller: anonymousUser, door: "runtime" });
    const [, firstFinished] = await rt!.runs.events({ runId: a.id }, 0);
    const { stream } = await subscribe(RUN_EVENTS, { afterSeq: firstFinished.seq });
    await until("the replayed events", () => stream.nexts().length >= 2);
    expect(stream.nexts<RunEventData>().map((e) => [e.data!.runEvents.run.id, e.data!.runEvents.type])).toEqual([
      [b.id, "RUN_STARTED"],
      [b.id, "RUN_FINISHED"],
    ]);
  });

  it("should release the server-side subscription when the client closes the response stream", async () => {
    await start();
    const { stream } = await subscribe(RUN_EVENTS);
    await until("the subscription to listen on the bus", () => listeners() === 1);
    await stream.cancel();
    await until("the server to release the subscription", () => listeners() === 0);
  });

  it("should release the server-side subscription when the client aborts the request", async () => {
    await start();
    const { abort } = await subscribe(RUN_EVENTS, { afterSeq: 0 });
    await until("the subscription to listen on the bus", () => listeners() === 1);
    abort.abort();
    await until("the server to release the subscription", () => listeners() === 0);
  });

  it("should mask an unexpected error raised in the stream", async () => {
    await start();
    rt!.runs.events = async () => {
      throw new Error("replica db://admin:hunter2@10.0.0.7 is down");
    };
    const { stream } = await subscribe(RUN_EVENTS, { afterSeq: 0 });
    await until("the stream to end", () => stream.ended());
    const errors = stream.nexts().flatMap((e) => e.errors ?? []);
    expect(errors).toEqual([
      expect.objectContaining({ message: "Unexpected error.", extensions: { code: "INTERNAL_SERVER_ERROR" } }),
    ]);
    expect(JSON.stringify(stream.events)).not.toContain("hunter2");
    await until("the server to release the subscription", () => listeners() === 0);
  });

  it("should refuse an anonymous subscriber with UNAUTHENTICATED when the anonymous role is NONE", async () => {
    await start({ TAI_ANONYMOUS_ROLE: "NONE" });
    const { stream } = await subscribe(RUN_EVENTS);
    await until("the stream to end", () => stream.ended());
    const errors = stream.nexts().flatMap((e) => e.errors ?? []);
    expect(errors).toEqual([expect.objectContaining({ extensions: { code: "UNAUTHENTICATED" } })]);
    expect(listeners()).toBe(0);
  });

  it("should end a key's stream with UNAUTHENTICATED when the key is revoked", async () => {
    await start();
    const key = await rt!.keys.create("dashboard", "USER");
    const { stream } = await subscribe(RUN_EVENTS, {}, { authorization: `Bearer ${key}` });
    await until("the subscription to listen on the bus", () => listeners() === 1);
    const other = await subscribe(RUN_EVENTS);
    await until("the second subscription to listen", () => listeners() === 2);
    await rt!.keys.revoke("dashboard");
    await until("the revoked stream to end", () => stream.ended());
    const errors = stream.nexts().flatMap((e) => e.errors ?? []);
    expect(errors).toEqual([
      expect.objectContaining({ message: "the API key was revoked", extensions: { code: "UNAUTHENTICATED" } }),
    ]);
    await until("the server to release the revoked subscription", () => listeners() === 1);
    // An anonymous subscriber is not affected by someone else's revocation.
    expect(other.stream.ended()).toBe(false);
  });

  it("should refuse a bad key with UNAUTHENTICATED", async () => {
    await start();
    const { stream } = await subscribe(RUN_EVENTS, {}, { authorization: "Bearer tai_not_a_real_key" });
    await until("the stream to end", () => stream.ended());
    const errors = stream.nexts().flatMap((e) => e.errors ?? []);
    expect(errors).toEqual([
      expect.objectContaining({
        message: "the API key is unknown or revoked",
        extensions: { code: "UNAUTHENTICATED" },
      }),
    ]);
    expect(listeners()).toBe(0);
  });
});
