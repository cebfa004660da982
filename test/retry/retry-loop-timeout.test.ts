import { describe, expect, it, vi } from "vitest";
import { ToolError } from "../../src/errors.ts";
import { failing, hanging, loop, policy, T0, useFakeClockAtT0 } from "./retry-loop-fixture.ts";

useFakeClockAtT0();

describe("per-attempt timeout", () => {
  it("should fail an attempt with TIMEOUT when it outlives timeoutSeconds, and abort its signal", async () => {
    const { body, signals } = hanging();
    const done = loop({ timeoutSeconds: 5, attempt: body });
    await vi.advanceTimersByTimeAsync(4999);
    expect(signals[0].aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const outcome = await done;
    expect(outcome).toMatchObject({ ok: false, error: { kind: "TIMEOUT" } });
    expect(outcome.attempts).toEqual([
      expect.objectContaining({
        number: 1,
        errorKind: "TIMEOUT",
        errorMessage: "the attempt timed out after 5s",
        waitSeconds: null,
      }),
    ]);
    expect(signals[0].aborted).toBe(true);
    expect(signals[0].reason).toMatchObject({ kind: "TIMEOUT" });
  });

  it("should retry a timed-out attempt when TIMEOUT is retryable, with a fresh signal", async () => {
    const { body, signals, startedAt } = hanging();
    const done = loop({
      timeoutSeconds: 5,
      policy: policy({ maxAttempts: 3, backoff: { initialSeconds: 1, multiplier: 2 } }),
      attempt: body,
    });
    await vi.advanceTimersByTimeAsync(60_000);
    const outcome = await done;
    // 0 → times out at 5s, waits 1s; 6s → times out at 11s, waits 2s; 13s → times out at 18s.
    expect(startedAt).toEqual([0, 6000, 13_000]);
    expect(outcome.attempts.map((a) => [a.errorKind, a.waitSeconds])).toEqual([
      ["TIMEOUT", 1],
      ["TIMEOUT", 2],
      ["TIMEOUT", null],
    ]);
    expect(outcome.attempts.map((a) => Date.parse(a.finishedAt!) - T0)).toEqual([5000, 11_000, 18_000]);
    expect(new Set(signals).size).toBe(3);
  });

  it("should not retry a timed-out attempt when TIMEOUT is not on the list", async () => {
    const { body } = hanging();
    const done = loop({
      timeoutSeconds: 1,
      policy: policy({ maxAttempts: 3, retryable: ["UPSTREAM"] }),
      attempt: body,
    });
    await vi.advanceTimersByTimeAsync(60_000);
    expect((await done).attempts).toHaveLength(1);
    expect(body).toHaveBeenCalledTimes(1);
  });

  it("should abandon a body that ignores its signal at the timeout", async () => {
    let settled = false;
    const done = loop({ timeoutSeconds: 2, attempt: () => new Promise<never>(() => {}) }).then((o) => {
      settled = true;
      return o;
    });
    await vi.advanceTimersByTimeAsync(1999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe(true);
    expect(await done).toMatchObject({ ok: false, error: { kind: "TIMEOUT" } });
  });

  it("should keep the TIMEOUT when an abandoned body resolves afterwards", async () => {
    const done = loop({
      timeoutSeconds: 1,
      attempt: () => new Promise<string>((r) => setTimeout(() => r("late"), 3000)),
    });
    await vi.advanceTimersByTimeAsync(5000);
    expect(await done).toMatchObject({ ok: false, error: { kind: "TIMEOUT" } });
  });

  it("should report the TIMEOUT even when the body rejects with its own error on abort", async () => {
    const done = loop({
      timeoutSeconds: 1,
      attempt: (_n, signal) =>
        new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(new Error("AbortError")))),
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(await done).toMatchObject({ ok: false, error: { kind: "TIMEOUT" } });
  });

  it("should honour a timeout longer than a 32-bit millisecond timer (30 days)", async () => {
    const { body } = hanging();
    const timeoutMs = 30 * 86_400_000;
    let settled = false;
    const done = loop({ timeoutSeconds: timeoutMs / 1000, attempt: body }).then((o) => {
      settled = true;
      return o;
    });
    await vi.advanceTimersByTimeAsync(timeoutMs - 1);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await done).toMatchObject({ ok: false, error: { kind: "TIMEOUT" } });
  });

  it("should honour a retryAfterSeconds longer than a 32-bit millisecond timer (30 days)", async () => {
    const waitSeconds = 30 * 86_400;
    const { body, startedAt } = failing(["RATE_LIMITED"], { retryAfterSeconds: waitSeconds });
    const done = loop({ policy: policy({ maxAttempts: 2 }), attempt: body });
    await vi.advanceTimersByTimeAsync(waitSeconds * 1000 - 1);
    expect(body).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    await done;
    expect(startedAt).toEqual([0, waitSeconds * 1000]);
  });
});

describe("cancellation", () => {
  it("should end as CANCELLED with no further attempt when aborted during an attempt", async () => {
    const { body } = hanging();
    const controller = new AbortController();
    const done = loop({
      signal: controller.signal,
      policy: policy({ maxAttempts: 5, backoff: { initialSeconds: 0 } }),
      attempt: body,
    });
    await vi.advanceTimersByTimeAsync(500);
    controller.abort(new ToolError("the run was cancelled", { kind: "CANCELLED" }));
    await vi.advanceTimersByTimeAsync(60_000);
    const outcome = await done;
    expect(body).toHaveBeenCalledTimes(1);
    expect(outcome).toMatchObject({ ok: false, error: { kind: "CANCELLED" } });
    expect(outcome.attempts).toEqual([
      expect.objectContaining({ number: 1, errorKind: "CANCELLED", waitSeconds: null }),
    ]);
    expect(Date.parse(outcome.attempts[0].finishedAt!) - T0).toBe(500);
  });

  it("should not retry when a cancelled body rejects with a retryable error of its own", async () => {
    const controller = new AbortController();
    const body = vi.fn(
      (_n: number, signal: AbortSignal) =>
        new Promise<never>((_, reject) =>
          signal.addEventListener("abort", () =>
            reject(new ToolError("connection reset", { kind: "NETWORK", retryable: true })),
          ),
        ),
    );
    const done = loop({
      signal: controller.signal,
      policy: policy({ maxAttempts: 5, backoff: { initialSeconds: 0 } }),
      attempt: body,
    });
    await vi.advanceTimersByTimeAsync(100);
    controller.abort(new ToolError("cancelled by server shutdown", { kind: "CANCELLED" }));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(body).toHaveBeenCalledTimes(1);
    expect(await done).toMatchObject({
      ok: false,
      error: { kind: "CANCELLED", message: "cancelled by server shutdown" },
    });
  });

  it("should abandon a body that ignores its signal as soon as the run is cancelled", async () => {
    const controller = new AbortController();
    let settled = false;
    const done = loop({
      signal: controller.signal,
      timeoutSeconds: 60,
      attempt: () => new Promise<never>(() => {}),
    }).then((o) => {
      settled = true;
      return o;
    });
    await vi.advanceTimersByTimeAsync(1000);
    controller.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(true);
    expect(await done).toMatchObject({ ok: false, error: { kind: "CANCELLED", message: "the run was cancelled" } });
  });

  it("should end as CANCELLED at once with no further attempt when aborted during a backoff wait", async () => {
    const controller = new AbortController();
    const { body } = failing(["UNAVAILABLE"]);
    let settledAt: number | null = null;
    const done = loop({
      signal: controller.signal,
      policy: policy({ maxAttempts: 3, backoff: { initialSeconds: 10 } }),
      attempt: body,
    }).then((o) => {
      settledAt = Date.now() - T0;
      return o;
    });
    await vi.advanceTimersByTimeAsync(3000);
    expect(settledAt).toBeNull();
    controller.abort(new ToolError("the run was cancelled", { kind: "CANCELLED" }));
    await vi.advanceTimersByTimeAsync(0);
    expect(settledAt).toBe(3000);
    await vi.advanceTimersByTimeAsync(60_000);
    const outcome = await done;
    expect(body).toHaveBeenCalledTimes(1);
    expect(outcome).toMatchObject({ ok: false, error: { kind: "CANCELLED" } });
    // The one attempt keeps the wait it was scheduled with; no attempt follows it.
    expect(outcome.attempts).toEqual([
      expect.objectContaining({ number: 1, errorKind: "UNAVAILABLE", waitSeconds: 10 }),
    ]);
  });

  it("should run no attempt when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const body = vi.fn(async () => "never");
    const outcome = await loop({ signal: controller.signal, attempt: body });
    expect(body).not.toHaveBeenCalled();
    expect(outcome).toMatchObject({ ok: false, error: { kind: "CANCELLED" }, attempts: [] });
  });

  it("should leave no timer behind after the loop ends", async () => {
    const { body } = failing(["UNAVAILABLE"]);
    const done = loop({
      timeoutSeconds: 30,
      policy: policy({ maxAttempts: 2, backoff: { initialSeconds: 1 } }),
      attempt: body,
    });
    await vi.advanceTimersByTimeAsync(1000);
    await done;
    expect(vi.getTimerCount()).toBe(0);
  });
});
