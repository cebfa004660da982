import { afterEach, describe, expect, it, vi } from "vitest";
import { runWithRetry, sleep } from "../../src/dispatch/retry-loop.ts";
import { ToolError } from "../../src/errors.ts";

/**
 * The chokepoint's retry loop is driven by its timers (the attempt timeout, the backoff
 * wait): these tests give it fake ones and move them by hand, so no test waits on a clock.
 */
afterEach(() => vi.useRealTimers());

/** A validated policy shape, written out (the loop reads only these fields). */
const policy = (maxAttempts: number, retryableKinds: string[] = ["UNAVAILABLE"]) =>
  ({ maxAttempts, idempotent: true, retryableKinds, backoff: { initialSeconds: 1, multiplier: 2, capSeconds: 30 } }) as never;

const unavailable = () => new ToolError("upstream down", { kind: "UNAVAILABLE" });

describe("runWithRetry", () => {
  it("should return the first attempt's value with one attempt recorded", async () => {
    const outcome = await runWithRetry({ policy: undefined, timeoutSeconds: 5, signal: new AbortController().signal, attempt: async (n) => `value ${n}` });
    expect(outcome).toMatchObject({ ok: true, value: "value 1" });
    expect(outcome.attempts).toHaveLength(1);
    expect(outcome.attempts[0]).toMatchObject({ number: 1, errorKind: null, errorMessage: null, waitSeconds: null });
  });

  it("should make exactly one attempt without a policy, and return its failure as data", async () => {
    let calls = 0;
    const outcome = await runWithRetry({
      policy: undefined,
      timeoutSeconds: 5,
      signal: new AbortController().signal,
      attempt: async () => (calls++, Promise.reject(unavailable())),
    });
    expect(calls).toBe(1);
    expect(outcome).toMatchObject({ ok: false, error: { kind: "UNAVAILABLE", message: "upstream down" } });
    expect(outcome.attempts[0]).toMatchObject({ errorKind: "UNAVAILABLE", waitSeconds: null });
  });

  it("should turn an unexpected throw into an INTERNAL error", async () => {
    const outcome = await runWithRetry({ policy: undefined, timeoutSeconds: 5, signal: new AbortController().signal, attempt: async () => Promise.reject(new TypeError("bug")) });
    expect(outcome).toMatchObject({ ok: false, error: { kind: "INTERNAL" } });
  });

  it("should retry a retryable failure after the backoff, reporting each retry first, until it succeeds", async () => {
    vi.useFakeTimers();
    const retries: number[] = [];
    let calls = 0;
    const pending = runWithRetry({
      policy: policy(3),
      timeoutSeconds: 60,
      signal: new AbortController().signal,
      attempt: async () => (++calls < 3 ? Promise.reject(unavailable()) : "third time"),
      onRetry: (record) => void retries.push(record.waitSeconds!),
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(2000);
    const outcome = await pending;
    expect(outcome).toMatchObject({ ok: true, value: "third time" });
    expect(retries).toEqual([1, 2]);
    expect(outcome.attempts.map((a) => [a.number, a.errorKind, a.waitSeconds])).toEqual([
      [1, "UNAVAILABLE", 1],
      [2, "UNAVAILABLE", 2],
      [3, null, null],
    ]);
  });

  it("should stop at the attempt budget with the last failure", async () => {
    vi.useFakeTimers();
    const pending = runWithRetry({
      policy: policy(2),
      timeoutSeconds: 60,
      signal: new AbortController().signal,
      attempt: async (n) => Promise.reject(new ToolError(`failure ${n}`, { kind: "UNAVAILABLE" })),
    });
    await vi.advanceTimersByTimeAsync(1000);
    const outcome = await pending;
    expect(outcome).toMatchObject({ ok: false, error: { message: "failure 2" } });
    expect(outcome.attempts.map((a) => a.waitSeconds)).toEqual([1, null]);
  });

  it("should not retry a kind the policy does not list, nor an error that says it is not retryable", async () => {
    for (const error of [new ToolError("bad input", { kind: "INVALID_INPUT" }), new ToolError("final", { kind: "UNAVAILABLE", retryable: false })]) {
      let calls = 0;
      const outcome = await runWithRetry({ policy: policy(5), timeoutSeconds: 60, signal: new AbortController().signal, attempt: async () => (calls++, Promise.reject(error)) });
      expect(calls).toBe(1);
      expect(outcome.ok).toBe(false);
    }
  });

  it("should fail an attempt that outlives its timeout with TIMEOUT, abandoning a body that ignores its signal", async () => {
    vi.useFakeTimers();
    let sawAbort = false;
    const pending = runWithRetry({
      policy: undefined,
      timeoutSeconds: 2,
      signal: new AbortController().signal,
      attempt: (_n, signal) => {
        signal.addEventListener("abort", () => (sawAbort = true));
        return new Promise(() => {});
      },
    });
    await vi.advanceTimersByTimeAsync(2000);
    expect(await pending).toMatchObject({ ok: false, error: { kind: "TIMEOUT", message: "the attempt timed out after 2s" } });
    expect(sawAbort).toBe(true);
  });

  it("should stop the attempt in flight when the run is cancelled, with the cancel's reason and no retry", async () => {
    const controller = new AbortController();
    let calls = 0;
    const pending = runWithRetry({ policy: policy(5), timeoutSeconds: 60, signal: controller.signal, attempt: () => (calls++, new Promise(() => {})) });
    controller.abort(new ToolError("cancelled by its caller", { kind: "CANCELLED" }));
    expect(await pending).toMatchObject({ ok: false, error: { kind: "CANCELLED", message: "cancelled by its caller" } });
    expect(calls).toBe(1);
  });

  it("should stop during a backoff wait when the run is cancelled", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    let calls = 0;
    const pending = runWithRetry({ policy: policy(5), timeoutSeconds: 60, signal: controller.signal, attempt: async () => (calls++, Promise.reject(unavailable())) });
    await vi.advanceTimersByTimeAsync(500);
    controller.abort("not a ToolError");
    const outcome = await pending;
    expect(outcome).toMatchObject({ ok: false, error: { kind: "CANCELLED", message: "the run was cancelled" } });
    expect(calls).toBe(1);
  });

  it("should make no attempt for a run cancelled before it starts", async () => {
    const controller = new AbortController();
    controller.abort();
    let calls = 0;
    const outcome = await runWithRetry({ policy: undefined, timeoutSeconds: 5, signal: controller.signal, attempt: async () => (calls++, "x") });
    expect(calls).toBe(0);
    expect(outcome).toMatchObject({ ok: false, attempts: [] });
  });
});

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
