import { describe, expect, it } from "vitest";
import { eventLog, follow, type EventLogSource } from "../../src/events/event-log.ts";
import { boundedSubscription } from "../../src/events/subscription.ts";

interface Entry {
  seq: number;
  final?: boolean;
}

/** An in-memory log and its live side: `store` writes the log, `publish` reaches the live subscribers. */
function memoryLog(options: Partial<EventLogSource<Entry>> = {}) {
  const stored: Entry[] = [];
  const subscribers = new Set<(e: Entry) => void>();
  const reads: number[] = [];
  let beforeRead: (() => void) | null = null;
  const source: EventLogSource<Entry> = {
    live: (signal) =>
      boundedSubscription<Entry>(
        (deliver) => {
          subscribers.add(deliver);
          return () => void subscribers.delete(deliver);
        },
        { signal },
      ),
    read: async (afterSeq, limit) => {
      reads.push(afterSeq);
      beforeRead?.();
      beforeRead = null;
      return stored.filter((e) => e.seq > afterSeq).slice(0, limit);
    },
    seq: (e) => e.seq,
    isLast: (e) => e.final === true,
    ...options,
  };
  return {
    source,
    reads,
    subscribers,
    store: (...entries: (number | Entry)[]) =>
      stored.push(...entries.map((e) => (typeof e === "number" ? { seq: e } : e))),
    publish: (e: Entry) => subscribers.forEach((s) => s(e)),
    /** Runs `f` as the next read begins (the moment between subscribing and reading). */
    onNextRead: (f: () => void) => (beforeRead = f),
  };
}

/** The seqs `stream` delivers until it ends or `count` are in. */
async function take(stream: AsyncGenerator<Entry>, count: number): Promise<number[]> {
  const seqs: number[] = [];
  for await (const e of stream) {
    seqs.push(e.seq);
    if (seqs.length === count) break;
  }
  return seqs;
}

describe("EventLog: one log followed from a seq", () => {
  it("should replay the stored entries, then the live ones, with no duplicate at the seam", async () => {
    const log = memoryLog();
    log.store(1, 2, 3);
    // Published after the subscription, before the read: 3 is both stored and live, 4 is live only.
    log.onNextRead(() => {
      log.publish({ seq: 3 });
      log.publish({ seq: 4 });
    });
    expect(await take(follow(log.source, 0, new AbortController().signal), 4)).toEqual([1, 2, 3, 4]);
  });

  it("should subscribe to the live side before it reads the log", async () => {
    const log = memoryLog();
    let subscribedAtRead = 0;
    log.onNextRead(() => (subscribedAtRead = log.subscribers.size));
    log.store(1);
    await take(follow(log.source, 0, new AbortController().signal), 1);
    expect(subscribedAtRead).toBe(1);
  });

  it("should read a long log in pages", async () => {
    const log = memoryLog({ pageSize: 2 });
    log.store(1, 2, 3, 4, 5);
    expect(await take(follow(log.source, 0, new AbortController().signal), 5)).toEqual([1, 2, 3, 4, 5]);
    expect(log.reads).toEqual([0, 2, 4]);
  });

  it("should replay nothing with afterSeq null, only what is live", async () => {
    const log = memoryLog();
    log.store(1, 2);
    const stream = follow(log.source, null, new AbortController().signal);
    const first = stream.next();
    await until(() => log.subscribers.size === 1);
    log.publish({ seq: 7 });
    expect((await first).value).toEqual({ seq: 7 });
    expect(log.reads).toEqual([]);
    await stream.return(undefined);
  });

  it("should fill a gap in a contiguous log from the store", async () => {
    const log = memoryLog({ contiguous: true });
    const stream = follow(log.source, 0, new AbortController().signal);
    const first = stream.next();
    await until(() => log.subscribers.size === 1 && log.reads.length === 1);
    // 1 and 2 were lost on the way: only 3 arrives live.
    log.store(1, 2, 3);
    log.publish({ seq: 3 });
    expect((await first).value).toEqual({ seq: 1 });
    expect(await take(stream, 2)).toEqual([2, 3]);
  });

  it("should take any higher seq as the next entry of a log that is not contiguous, without reading", async () => {
    const log = memoryLog();
    const stream = follow(log.source, 0, new AbortController().signal);
    const first = stream.next();
    await until(() => log.reads.length === 1);
    log.publish({ seq: 5 });
    log.publish({ seq: 9 });
    expect((await first).value).toEqual({ seq: 5 });
    expect(await take(stream, 1)).toEqual([9]);
    expect(log.reads).toEqual([0]);
  });

  it("should read the log again when the live side stays silent", async () => {
    const log = memoryLog({ contiguous: true, pollMs: 10 });
    const stream = follow(log.source, 0, new AbortController().signal);
    const first = stream.next();
    await until(() => log.reads.length === 1);
    // Stored, never published (a lost message): only a poll finds it.
    log.store(1);
    expect((await first).value).toEqual({ seq: 1 });
    expect(log.reads.length).toBeGreaterThan(1);
    await stream.return(undefined);
  });

  it("should end right after the terminal entry and release the live side", async () => {
    const log = memoryLog();
    const stream = eventLog(log.source).follow(0, new AbortController().signal);
    const first = stream.next();
    await until(() => log.reads.length === 1);
    log.publish({ seq: 1 });
    log.publish({ seq: 2, final: true });
    log.publish({ seq: 3 });
    expect((await first).value).toEqual({ seq: 1 });
    expect(await take(stream, 5)).toEqual([2]);
    expect(log.subscribers.size).toBe(0);
  });

  it("should end at a stored terminal without waiting on the live side", async () => {
    const log = memoryLog();
    log.store(1, { seq: 2, final: true });
    expect(await take(follow(log.source, 0, new AbortController().signal), 5)).toEqual([1, 2]);
    expect(log.subscribers.size).toBe(0);
  });

  it("should end when its signal aborts, while it waits", async () => {
    const log = memoryLog({ contiguous: true, pollMs: 60_000 });
    const controller = new AbortController();
    const stream = follow(log.source, 0, controller.signal);
    const first = stream.next();
    await until(() => log.reads.length === 1);
    controller.abort();
    expect(await first).toEqual({ value: undefined, done: true });
    expect(log.subscribers.size).toBe(0);
  });

  it("should hand an error of the live side to its consumer", async () => {
    const failing = new Error("closed");
    const log = memoryLog({
      live: (signal) =>
        boundedSubscription<Entry>((_deliver, fail) => (queueMicrotask(() => fail(failing)), () => {}), { signal }),
    });
    await expect(take(follow(log.source, null, new AbortController().signal), 1)).rejects.toBe(failing);
  });

  it("should hold one live entry beyond the live side's buffer when it reads ahead, and none when it does not", async () => {
    const delivered = async (readAhead: boolean) => {
      const log = memoryLog({ readAhead });
      log.source.live = (signal) =>
        boundedSubscription<Entry>(
          (deliver) => {
            log.subscribers.add(deliver);
            return () => void log.subscribers.delete(deliver);
          },
          { signal, bufferSize: 2 },
        );
      const stream = follow(log.source, null, new AbortController().signal);
      const first = stream.next();
      await until(() => log.subscribers.size === 1);
      log.publish({ seq: 1 });
      expect((await first).value?.seq).toBe(1);
      for (const seq of [2, 3, 4]) log.publish({ seq, final: seq === 4 });
      const seqs: number[] = [];
      try {
        for await (const e of stream) seqs.push(e.seq);
      } catch (e) {
        return { seqs, error: (e as Error).name };
      }
      return { seqs, error: null };
    };
    expect(await delivered(true)).toEqual({ seqs: [2, 3, 4], error: null });
    expect((await delivered(false)).error).toBe("SubscriberOverflowError");
  });
});

/** Waits (a macrotask at a time) until `ready` holds. */
async function until(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !ready(); i++) await new Promise((r) => setImmediate(r));
  expect(ready()).toBe(true);
}
