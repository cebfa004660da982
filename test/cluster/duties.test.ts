import { afterEach, describe, expect, it, vi } from "vitest";
import { Duties, everyDuty, type Duty } from "../../src/cluster/duty.ts";
import { interactionExpiry } from "../../src/cluster/interaction-expiry.ts";
import type { FailureLog } from "../../src/failure-log.ts";

/** A duty that writes what happens to it in `journal`. */
function journaled(name: string, journal: string[], started: unknown = undefined): Duty {
  return {
    name,
    start: async () => {
      journal.push(`start ${name}`);
      return started;
    },
    stop: () => void journal.push(`stop ${name}`),
  };
}

describe("Duties", () => {
  afterEach(() => vi.useRealTimers());

  it("should start duties in order and stop them in reverse", async () => {
    const journal: string[] = [];
    const duties = new Duties();
    for (const name of ["a", "b", "c"]) await duties.start(journaled(name, journal));
    await duties.stop();
    expect(journal).toEqual(["start a", "start b", "start c", "stop c", "stop b", "stop a"]);
  });

  it("should hand back what a duty's start resolves with", async () => {
    const duties = new Duties();
    expect(await duties.start(journaled("sweep", [], ["run-1"]))).toEqual(["run-1"]);
  });

  it("should stop each duty once, however often it is stopped", async () => {
    const journal: string[] = [];
    const duties = new Duties();
    await duties.start(journaled("a", journal));
    await duties.stop();
    await duties.stop();
    expect(journal.filter((j) => j.startsWith("stop"))).toEqual(["stop a"]);
  });

  it("should stop synchronous duties within the caller's turn", async () => {
    const journal: string[] = [];
    const duties = new Duties();
    await duties.start(journaled("a", journal));
    await duties.start(journaled("b", journal));
    void duties.stop();
    expect(journal.slice(-2)).toEqual(["stop b", "stop a"]);
  });

  it("should await a duty's asynchronous stop before stopping the one started before it", async () => {
    const journal: string[] = [];
    const duties = new Duties();
    await duties.start(journaled("first", journal));
    let release = () => {};
    await duties.start({
      name: "slow",
      start: () => {},
      stop: () => new Promise<void>((r) => (release = r)).then(() => void journal.push("stop slow")),
    });
    const stopped = duties.stop();
    expect(journal).not.toContain("stop first");
    release();
    await stopped;
    expect(journal.slice(-2)).toEqual(["stop slow", "stop first"]);
  });
});

describe("everyDuty", () => {
  afterEach(() => vi.useRealTimers());

  it("should tick every interval between start and stop only", async () => {
    vi.useFakeTimers();
    let ticks = 0;
    const duty = everyDuty("count", 100, () => ticks++);
    vi.advanceTimersByTime(250);
    expect(ticks).toBe(0);
    await duty.start();
    vi.advanceTimersByTime(250);
    expect(ticks).toBe(2);
    await duty.stop();
    vi.advanceTimersByTime(500);
    expect(ticks).toBe(2);
  });
});

describe("interactionExpiry", () => {
  afterEach(() => vi.useRealTimers());

  it("should expire due interactions each tick and count a failed tick", async () => {
    vi.useFakeTimers();
    const failed: string[] = [];
    const failures: FailureLog = { failed: (_level, message, fields) => failed.push(`${message}: ${fields.error}`) };
    let calls = 0;
    const duty = interactionExpiry(
      { expireDue: async () => (++calls === 2 ? Promise.reject(new Error("database is out")) : 0) },
      failures,
      1000,
    );
    await duty.start();
    await vi.advanceTimersByTimeAsync(2000);
    await duty.stop();
    expect(calls).toBe(2);
    expect(failed).toEqual(["expiring interactions failed: database is out"]);
  });
});
