import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TaiGraphQLError, TaiTransportError } from "../../src/client/errors.ts";
import { ResumingStream, type StreamCursor } from "../../src/client/resuming-stream.ts";
import type { Sink, Transport, WireRequest } from "../../src/client/transport.ts";

/** A transport whose subscriptions the test drives by hand. */
function fakeTransport() {
  const subs: { variables: Record<string, unknown>; request: WireRequest; sink: Sink; ended: boolean }[] = [];
  const transport: Transport = {
    subscribe(request, sink) {
      const sub = { variables: { ...request.variables }, request, sink, ended: false };
      subs.push(sub);
      return () => (sub.ended = true);
    },
    reconnect: () => {},
    dispose: async () => {},
  };
  return { transport, subs, last: () => subs.at(-1)! };
}

interface Ev {
  seq: number;
  final?: boolean;
}
const ev = (seq: number, final = false) => ({ data: { e: { seq, final } } });

const cursor = (resumable = true): StreamCursor<Ev> => ({
  pick: (data) => (data as { e: Ev }).e,
  seq: (e) => e.seq,
  isFinal: (e) => Boolean(e.final),
  resumeAfter: (last) => (last || resumable ? { afterSeq: last?.seq ?? 0 } : { cannotResume: "no cursor yet" }),
});

const DELAY = 100;
const lost = { code: 1006, reason: "" };

function stream(options: { attempts?: number; resumable?: boolean } = {}) {
  const t = fakeTransport();
  const onEnd = vi.fn();
  const s = new ResumingStream<Ev>(
    t.transport,
    "subscription { e }",
    { afterSeq: 0 },
    cursor(options.resumable),
    { attempts: options.attempts ?? 3, delayMs: (n) => DELAY * n },
    onEnd,
  );
  return { ...t, s, onEnd };
}

const seqs = async (s: AsyncIterator<Ev>, n: number) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(((await s.next()).value as Ev).seq);
  return out;
};

describe("ResumingStream", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  describe("resuming", () => {
    it("should subscribe again after the backoff delay, from the last seq delivered", async () => {
      const { s, subs, last } = stream();
      last().sink.next(ev(4));
      last().sink.next(ev(5));
      last().sink.error(lost);
      expect(subs[0].ended).toBe(true);
      await vi.advanceTimersByTimeAsync(DELAY - 1);
      expect(subs).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(subs).toHaveLength(2);
      expect(last().variables).toEqual({ afterSeq: 5 });
      last().sink.next(ev(6));
      expect(await seqs(s, 3)).toEqual([4, 5, 6]);
      expect(s.lastSeq).toBe(6);
    });

    it("should report as lastSeq the seq of the last value read, not of one still queued", async () => {
      const { s, last } = stream();
      last().sink.next(ev(1));
      last().sink.next(ev(2));
      expect(s.lastSeq).toBeUndefined();
      await s.next();
      expect(s.lastSeq).toBe(1);
    });

    it("should drop a replayed value at or before the last seq delivered", async () => {
      const { s, last } = stream();
      last().sink.next(ev(1));
      last().sink.next(ev(2));
      last().sink.error(lost);
      await vi.advanceTimersByTimeAsync(DELAY);
      for (const seq of [1, 2, 3]) last().sink.next(ev(seq));
      expect(await seqs(s, 3)).toEqual([1, 2, 3]);
    });

    it("should resume at once when the server closes it as SUBSCRIBER_LAGGING, as an error or as a result", async () => {
      const { subs, last } = stream();
      last().sink.next(ev(1));
      last().sink.error([{ message: "lagging", extensions: { code: "SUBSCRIBER_LAGGING", afterSeq: 1 } }]);
      await vi.advanceTimersByTimeAsync(0);
      expect(subs).toHaveLength(2);
      last().sink.next({ errors: [{ message: "lagging", extensions: { code: "SUBSCRIBER_LAGGING", afterSeq: 1 } }] });
      await vi.advanceTimersByTimeAsync(0);
      expect(subs).toHaveLength(3);
      expect(last().variables).toEqual({ afterSeq: 1 });
    });

    it("should keep its request current, so that a transport's own re-send resumes from the last seq", () => {
      const { last } = stream();
      const request = last().request;
      last().sink.next(ev(7));
      expect(request.variables).toEqual({ afterSeq: 7 });
    });

    it("should ignore what a superseded subscription still delivers", async () => {
      const { s, subs } = stream();
      subs[0].sink.next(ev(1));
      subs[0].sink.error(lost);
      await vi.advanceTimersByTimeAsync(DELAY);
      subs[0].sink.next(ev(2));
      subs[0].sink.complete();
      subs[1].sink.next(ev(2));
      expect(await seqs(s, 2)).toEqual([1, 2]);
    });
  });

  describe("giving up", () => {
    it("should end with a TaiTransportError after `attempts` failed resumptions in a row, the delay growing", async () => {
      const { s, subs, last, onEnd } = stream({ attempts: 2 });
      last().sink.error(lost);
      await vi.advanceTimersByTimeAsync(DELAY);
      last().sink.error(lost);
      await vi.advanceTimersByTimeAsync(2 * DELAY - 1);
      expect(subs).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(1);
      expect(subs).toHaveLength(3);
      last().sink.error({ code: 1006, reason: "gone" });
      const error = await s.next().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TaiTransportError);
      expect(error).toMatchObject({
        closeCode: 1006,
        message: "gave up resuming the stream after 2 attempts: the socket closed with 1006 (gone)",
      });
      expect(onEnd).toHaveBeenCalledTimes(1);
      await vi.runAllTimersAsync();
      expect(subs).toHaveLength(3);
    });

    it("should count failures afresh once a value arrives", async () => {
      const { subs, last } = stream({ attempts: 1 });
      last().sink.error(lost);
      await vi.advanceTimersByTimeAsync(DELAY);
      last().sink.next(ev(1));
      last().sink.error(lost);
      await vi.advanceTimersByTimeAsync(DELAY);
      expect(subs).toHaveLength(3);
    });

    it.each([
      ["GraphQL errors", [{ message: "no", extensions: { code: "FORBIDDEN" } }], TaiGraphQLError],
      ["a refused key (4403)", { code: 4403, reason: "Forbidden: the API key is unknown or revoked" }, TaiGraphQLError],
      ["a bad request (4400)", { code: 4400, reason: "Bad" }, TaiTransportError],
      ["a protocol error (1002)", { code: 1002, reason: "" }, TaiTransportError],
    ])("should not retry %s", async (_what, cause, type) => {
      const { s, subs, last } = stream();
      last().sink.error(cause);
      await expect(s.next()).rejects.toBeInstanceOf(type);
      await vi.runAllTimersAsync();
      expect(subs).toHaveLength(1);
    });

    it("should end with the errors of a result that carries them", async () => {
      const { s, last } = stream();
      last().sink.next(ev(1));
      last().sink.next({ errors: [{ message: "the agent run failed", extensions: { code: "AGENT_RUN_FAILED" } }] });
      expect(await seqs(s, 1)).toEqual([1]);
      await expect(s.next()).rejects.toMatchObject({ name: "TaiGraphQLError", code: "AGENT_RUN_FAILED" });
    });

    it("should not resume a stream whose cursor cannot continue from where it is", async () => {
      const { s, subs, last } = stream({ resumable: false });
      last().sink.error(lost);
      await expect(s.next()).rejects.toThrow(/^no cursor yet: the socket closed with 1006$/);
      expect(subs).toHaveLength(1);
    });
  });

  describe("ending", () => {
    it("should end after a final value and end its subscription", async () => {
      const { s, subs, last, onEnd } = stream();
      last().sink.next(ev(1));
      last().sink.next(ev(2, true));
      expect(await seqs(s, 2)).toEqual([1, 2]);
      expect(await s.next()).toEqual({ value: undefined, done: true });
      expect(subs[0].ended).toBe(true);
      expect(onEnd).toHaveBeenCalledTimes(1);
    });

    it("should end when the server completes it", async () => {
      const { s, last } = stream();
      last().sink.next(ev(1));
      last().sink.complete();
      expect(await seqs(s, 1)).toEqual([1]);
      expect(await s.next()).toEqual({ value: undefined, done: true });
    });

    it("should end the subscription when the consumer returns, even while a next() waits", async () => {
      const { s, last, onEnd } = stream();
      const pending = s.next();
      await s.return();
      expect(await pending).toEqual({ value: undefined, done: true });
      expect(last().ended).toBe(true);
      expect(onEnd).toHaveBeenCalledTimes(1);
    });

    it("should cancel a pending resumption when the consumer returns during the wait", async () => {
      const { s, subs, last } = stream();
      last().sink.error(lost);
      await s.return();
      await vi.runAllTimersAsync();
      expect(subs).toHaveLength(1);
    });
  });
});
