import { describe, expect, it, vi } from "vitest";
import { ToolError } from "../../src/errors.ts";
import { failing, loop, policy, T0, useFakeClockAtT0 } from "./retry-loop-fixture.ts";

useFakeClockAtT0();

describe("attempts and waits", () => {
  it("should wait exactly min(cap, initial * multiplier^(n-1)) between attempts", async () => {
    const { body, startedAt } = failing(["UNAVAILABLE"]);
    const done = loop({
      policy: policy({ maxAttempts: 5, backoff: { initialSeconds: 1, multiplier: 2, capSeconds: 3 } }),
      attempt: body,
    });
    await vi.advanceTimersByTimeAsync(60_000);
    const outcome = await done;
    expect(startedAt).toEqual([0, 1000, 3000, 6000, 9000]);
    expect(outcome.ok).toBe(false);
    expect(outcome.attempts.map((a) => a.waitSeconds)).toEqual([1, 2, 3, 3, null]);
  });

  it("should not start the next attempt one millisecond before its wait is over", async () => {
    const { body } = failing(["NETWORK"]);
    const done = loop({ policy: policy({ maxAttempts: 2, backoff: { initialSeconds: 2 } }), attempt: body });
    await vi.advanceTimersByTimeAsync(1999);
    expect(body).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(body).toHaveBeenCalledTimes(2);
    await done;
  });

  it("should record every attempt with its number, times, kind, message and wait, null on the last", async () => {
    const { body } = failing(["TIMEOUT", "RATE_LIMITED", "UNAVAILABLE"]);
    const done = loop({
      policy: policy({ maxAttempts: 3, backoff: { initialSeconds: 0.5, multiplier: 2 } }),
      attempt: body,
    });
    await vi.advanceTimersByTimeAsync(10_000);
    const outcome = await done;
    expect(outcome).toMatchObject({
      ok: false,
      error: { kind: "UNAVAILABLE", message: "attempt 3 failed with UNAVAILABLE" },
    });
    expect(outcome.attempts).toEqual([
      {
        number: 1,
        startedAt: new Date(T0).toISOString(),
        finishedAt: new Date(T0).toISOString(),
        errorKind: "TIMEOUT",
        errorMessage: "attempt 1 failed with TIMEOUT",
        waitSeconds: 0.5,
      },
      {
        number: 2,
        startedAt: new Date(T0 + 500).toISOString(),
        finishedAt: new Date(T0 + 500).toISOString(),
        errorKind: "RATE_LIMITED",
        errorMessage: "attempt 2 failed with RATE_LIMITED",
        waitSeconds: 1,
      },
      {
        number: 3,
        startedAt: new Date(T0 + 1500).toISOString(),
        finishedAt: new Date(T0 + 1500).toISOString(),
        errorKind: "UNAVAILABLE",
        errorMessage: "attempt 3 failed with UNAVAILABLE",
        waitSeconds: null,
      },
    ]);
  });

  it("should stop retrying at the first success and record it without an error", async () => {
    let n = 0;
    const done = loop({
      policy: policy({ maxAttempts: 5, backoff: { initialSeconds: 1 } }),
      attempt: async () => {
        if (++n < 3) throw new ToolError("not yet", { kind: "UNAVAILABLE" });
        return "ok";
      },
    });
    await vi.advanceTimersByTimeAsync(60_000);
    const outcome = await done;
    expect(outcome).toMatchObject({ ok: true, value: "ok" });
    expect(outcome.attempts.map((a) => [a.number, a.errorKind, a.waitSeconds])).toEqual([
      [1, "UNAVAILABLE", 1],
      [2, "UNAVAILABLE", 2],
      [3, null, null],
    ]);
    expect(n).toBe(3);
  });

  it("should run exactly one attempt without a policy", async () => {
    const { body } = failing(["UNAVAILABLE"]);
    const done = loop({ attempt: body });
    await vi.advanceTimersByTimeAsync(60_000);
    const outcome = await done;
    expect(body).toHaveBeenCalledTimes(1);
    expect(outcome.attempts).toHaveLength(1);
    expect(outcome.attempts[0]).toMatchObject({ number: 1, errorKind: "UNAVAILABLE", waitSeconds: null });
  });

  it("should not retry a kind the policy does not list", async () => {
    const { body } = failing(["UPSTREAM"]);
    const done = loop({ policy: policy({ maxAttempts: 5 }), attempt: body });
    await vi.advanceTimersByTimeAsync(60_000);
    expect((await done).attempts).toHaveLength(1);
  });

  it("should retry an unlisted kind whose error says retryable: true", async () => {
    const { body, startedAt } = failing(["UPSTREAM"], { retryable: true });
    const done = loop({
      policy: policy({ maxAttempts: 2, retryable: false, backoff: { initialSeconds: 4 } }),
      attempt: body,
    });
    await vi.advanceTimersByTimeAsync(60_000);
    await done;
    expect(startedAt).toEqual([0, 4000]);
  });

  it("should widen the wait to the error's retryAfterSeconds beyond the cap", async () => {
    const { body, startedAt } = failing(["RATE_LIMITED"], { retryAfterSeconds: 7 });
    const done = loop({
      policy: policy({ maxAttempts: 3, backoff: { initialSeconds: 1, capSeconds: 1 } }),
      attempt: body,
    });
    await vi.advanceTimersByTimeAsync(60_000);
    const outcome = await done;
    expect(startedAt).toEqual([0, 7000, 14_000]);
    expect(outcome.attempts.map((a) => a.waitSeconds)).toEqual([7, 7, null]);
  });

  it("should count a non-ToolError throw as INTERNAL with no verdict and never retry it", async () => {
    const body = vi.fn(async () => {
      throw new TypeError("secret token abc123 leaked");
    });
    const done = loop({ policy: policy({ maxAttempts: 3 }), attempt: body });
    await vi.advanceTimersByTimeAsync(60_000);
    const outcome = await done;
    expect(body).toHaveBeenCalledTimes(1);
    expect(outcome).toMatchObject({ ok: false, error: { kind: "INTERNAL" } });
    expect(outcome.attempts[0].errorMessage).not.toContain("abc123");
  });

  it("should record a body that throws synchronously as a failed attempt", async () => {
    const body = vi.fn((): Promise<string> => {
      throw new ToolError("sync", { kind: "NETWORK" });
    });
    const done = loop({ policy: policy({ maxAttempts: 2, backoff: { initialSeconds: 1 } }), attempt: body });
    await vi.advanceTimersByTimeAsync(60_000);
    const outcome = await done;
    expect(body).toHaveBeenCalledTimes(2);
    expect(outcome.attempts.map((a) => a.errorKind)).toEqual(["NETWORK", "NETWORK"]);
  });

  it("should call onRetry once per retried attempt, before its wait, and not for the last", async () => {
    const { body } = failing(["UNAVAILABLE"]);
    const seen: [number, number | null, string, number][] = [];
    const done = loop({
      policy: policy({ maxAttempts: 3, backoff: { initialSeconds: 1 } }),
      attempt: body,
      onRetry: (a, e) => void seen.push([a.number, a.waitSeconds, e.kind, Date.now() - T0]),
    });
    await vi.advanceTimersByTimeAsync(60_000);
    await done;
    expect(seen).toEqual([
      [1, 1, "UNAVAILABLE", 0],
      [2, 2, "UNAVAILABLE", 1000],
    ]);
  });
});
