import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { FAST, retryRunHelpers } from "./retry-run-helpers.ts";

describe("retries through the dispatch chokepoint", () => {
  let rt: TestRuntime;
  let app: App;

  beforeEach(async () => {
    app = new App();
    // No demo tools: the names here are this file's own.
    rt = await testRuntime({ app, config: { demo: false } });
  });
  afterEach(() => rt.dispose());

  const { run, flaky, eventsOf } = retryRunHelpers(
    () => rt,
    () => app,
  );

  describe("attempt records", () => {
    it("should record every attempt and its wait on the persisted run", async () => {
      const calls = flaky("flaky", ["UNAVAILABLE", "RATE_LIMITED"], {
        maxAttempts: 3,
        idempotent: true,
        retryable: true,
        backoff: FAST,
      });
      const done = await run("flaky");
      expect(done).toMatchObject({ status: "SUCCEEDED", data: { attempt: 3 } });
      expect(calls).toEqual([1, 2, 3]);
      const stored = (await rt.runs.get(done.id))!;
      expect(
        stored.attempts.map(({ number, errorKind, errorMessage, waitSeconds }) => ({
          number,
          errorKind,
          errorMessage,
          waitSeconds,
        })),
      ).toEqual([
        { number: 1, errorKind: "UNAVAILABLE", errorMessage: "attempt 1: UNAVAILABLE", waitSeconds: 0.01 },
        { number: 2, errorKind: "RATE_LIMITED", errorMessage: "attempt 2: RATE_LIMITED", waitSeconds: 0.02 },
        { number: 3, errorKind: null, errorMessage: null, waitSeconds: null },
      ]);
      for (const [i, a] of stored.attempts.entries()) {
        expect(Date.parse(a.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(a.startedAt));
        if (i > 0)
          expect(Date.parse(a.startedAt)).toBeGreaterThanOrEqual(Date.parse(stored.attempts[i - 1].finishedAt!));
      }
      expect(done.attempts).toEqual(stored.attempts);
    });

    it("should fail with the last error once the budget is spent, its last wait null", async () => {
      const calls = flaky("down", ["UNAVAILABLE", "UNAVAILABLE", "NETWORK", "NETWORK"], {
        maxAttempts: 3,
        idempotent: true,
        retryable: true,
        backoff: FAST,
      });
      const done = await run("down");
      expect(done).toMatchObject({
        status: "FAILED",
        isError: true,
        errorKind: "NETWORK",
        errorMessage: "attempt 3: NETWORK",
      });
      expect(calls).toEqual([1, 2, 3]);
      const stored = (await rt.runs.get(done.id))!;
      expect(stored).toMatchObject({ status: "FAILED", errorKind: "NETWORK" });
      expect(stored.attempts.map((a) => [a.number, a.errorKind, a.waitSeconds])).toEqual([
        [1, "UNAVAILABLE", 0.01],
        [2, "UNAVAILABLE", 0.02],
        [3, "NETWORK", null],
      ]);
    });

    it("should run exactly one attempt for a tool with no policy, even on a transient failure", async () => {
      const calls = flaky("plain", ["UNAVAILABLE"]);
      const done = await run("plain");
      expect(done).toMatchObject({ status: "FAILED", errorKind: "UNAVAILABLE", retryPolicy: null });
      expect(calls).toEqual([1]);
      expect((await rt.runs.get(done.id))!.attempts).toEqual([
        expect.objectContaining({ number: 1, errorKind: "UNAVAILABLE", waitSeconds: null }),
      ]);
    });

    it("should not retry a kind the policy does not list", async () => {
      const calls = flaky("picky", ["UPSTREAM"], {
        maxAttempts: 3,
        idempotent: true,
        retryable: ["TIMEOUT"],
        backoff: FAST,
      });
      expect(await run("picky")).toMatchObject({ status: "FAILED", errorKind: "UPSTREAM" });
      expect(calls).toEqual([1]);
    });

    it("should persist an ATTEMPT_FAILED event with a sequence number for each retried attempt", async () => {
      flaky("evented", ["TIMEOUT", "TIMEOUT"], { maxAttempts: 3, idempotent: true, retryable: true, backoff: FAST });
      const done = await run("evented");
      const events = await eventsOf(done.id);
      expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "ATTEMPT_FAILED", "ATTEMPT_FAILED", "RUN_FINISHED"]);
      const seqs = events.map((e) => e.seq);
      expect(seqs.every((s) => Number.isInteger(s) && s > 0)).toBe(true);
      expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
      expect(new Set(seqs).size).toBe(seqs.length);
      const [, first, second] = events;
      expect(first.run.attempts.map((a) => [a.number, a.errorKind, a.waitSeconds])).toEqual([[1, "TIMEOUT", 0.01]]);
      expect(second.run.attempts.map((a) => [a.number, a.errorKind, a.waitSeconds])).toEqual([
        [1, "TIMEOUT", 0.01],
        [2, "TIMEOUT", 0.02],
      ]);
      expect(first.run.status).toBe("RUNNING");
      expect(events[3].run).toMatchObject({ status: "SUCCEEDED" });
    });

    it("should publish the ATTEMPT_FAILED events on the bus as they happen", async () => {
      flaky("published", ["NETWORK"], { maxAttempts: 2, idempotent: true, retryable: true, backoff: FAST });
      const seen: string[] = [];
      const unlisten = rt.bus.listen("runEvent", (e) => {
        if (e.tool === "published") seen.push(e.type);
      });
      try {
        await run("published");
      } finally {
        unlisten();
      }
      expect(seen).toEqual(["RUN_STARTED", "ATTEMPT_FAILED", "RUN_FINISHED"]);
    });

    it("should retry a timed-out attempt when TIMEOUT is retryable, each attempt failing TIMEOUT", async () => {
      let calls = 0;
      app.tool(
        {
          name: "sleepy",
          description: "Never answers.",
          input: z.object({}),
          timeoutSeconds: 0.05,
          retry: { maxAttempts: 2, idempotent: true, retryable: ["TIMEOUT"], backoff: FAST },
        },
        (_i, ctx) =>
          new Promise((_, reject) => {
            calls++;
            ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
          }),
      );
      const done = await run("sleepy");
      expect(done).toMatchObject({ status: "FAILED", errorKind: "TIMEOUT" });
      expect(calls).toBe(2);
      expect((await rt.runs.get(done.id))!.attempts.map((a) => [a.errorKind, a.waitSeconds])).toEqual([
        ["TIMEOUT", 0.01],
        ["TIMEOUT", null],
      ]);
    });
  });

  describe("the applied policy", () => {
    it("should show the effective policy and the name it was declared on", async () => {
      flaky("declared", [], {
        maxAttempts: 4,
        idempotent: true,
        retryable: ["UPSTREAM", "NETWORK"],
        backoff: { initialSeconds: 0.01 },
      });
      const done = await run("declared");
      const expected = {
        maxAttempts: 4,
        idempotent: true,
        retryableKinds: ["UPSTREAM", "NETWORK"],
        backoff: { initialSeconds: 0.01, multiplier: 2, capSeconds: 30 },
        declaredOn: "declared",
      };
      expect(done.retryPolicy).toEqual(expected);
      expect((await rt.runs.get(done.id))!.retryPolicy).toEqual(expected);
    });

    it("should resolve retryable: true to the default transient kinds on the run", async () => {
      flaky("transient", [], { maxAttempts: 2, idempotent: true, retryable: true, backoff: FAST });
      expect((await run("transient")).retryPolicy?.retryableKinds).toEqual([
        "TIMEOUT",
        "RATE_LIMITED",
        "UNAVAILABLE",
        "NETWORK",
      ]);
    });

    it("should apply a policy declared with app.retryPolicy after the tool was registered", async () => {
      const calls = flaky("later", ["UNAVAILABLE"]);
      app.retryPolicy("later", { maxAttempts: 2, idempotent: true, retryable: true, backoff: FAST });
      const done = await run("later");
      expect(done).toMatchObject({ status: "SUCCEEDED", retryPolicy: { maxAttempts: 2, declaredOn: "later" } });
      expect(calls).toEqual([1, 2]);
    });

    it("should apply a policy declared with app.retryPolicy before the tool was registered", async () => {
      app.retryPolicy("early", { maxAttempts: 3, idempotent: true, retryable: ["UPSTREAM"], backoff: FAST });
      const calls = flaky("early", ["UPSTREAM", "UPSTREAM"]);
      const done = await run("early");
      expect(done).toMatchObject({
        status: "SUCCEEDED",
        retryPolicy: { declaredOn: "early", retryableKinds: ["UPSTREAM"] },
      });
      expect(calls).toEqual([1, 2, 3]);
    });

    it("should not apply a policy declared on another name", async () => {
      app.retryPolicy("flaky_monitor", { maxAttempts: 3, idempotent: true, retryable: true, backoff: FAST });
      const calls = flaky("flaky", ["UNAVAILABLE"]);
      expect(await run("flaky")).toMatchObject({ status: "FAILED", retryPolicy: null });
      expect(calls).toEqual([1]);
    });

    it("should refuse a second declaration on the same name", () => {
      flaky("twice", [], { maxAttempts: 2, idempotent: true, backoff: FAST });
      expect(() => app.retryPolicy("twice", { maxAttempts: 3, idempotent: true })).toThrow(/twice/);
    });
  });
});
