import { afterEach, describe, expect, it, vi } from "vitest";
import { sleep } from "../../src/dispatch/retry-loop.ts";

/**
 * The wait the chokepoint's retry loop (and the tests' timing tools) use; the loop itself
 * is covered in test/retry/retry-loop.test.ts. Driven by fake timers: no test waits on a clock.
 */
afterEach(() => vi.useRealTimers());

describe("sleep", () => {
  it("should resolve after the time given", async () => {
    vi.useFakeTimers();
    let done = false;
    void sleep(1000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
  });

  it("should wait past the 24.8-day limit of one timer instead of firing at once", async () => {
    vi.useFakeTimers();
    let done = false;
    void sleep(30 * 24 * 3600 * 1000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(1000);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(25 * 24 * 3600 * 1000);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(5 * 24 * 3600 * 1000);
    expect(done).toBe(true);
  });

  it("should reject with the signal's reason when aborted, before or during the wait", async () => {
    await expect(sleep(10, AbortSignal.abort("early"))).rejects.toBe("early");
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort("late");
    await expect(waiting).rejects.toBe("late");
  });
});
