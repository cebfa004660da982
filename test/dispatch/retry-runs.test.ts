import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { ToolError, type ErrorKind } from "../../src/errors.ts";
import { toolResult } from "../../src/tools/result.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const FAST = { initialSeconds: 0.01, multiplier: 2, capSeconds: 1 };

describe("retries through the dispatch chokepoint", () => {
  let rt: TestRuntime;
  let app: App;

  beforeEach(async () => {
    app = new App();
    // No demo tools: the names here are this file's own.
    rt = await testRuntime({ app, config: { demo: false } });
  });
  afterEach(() => rt.dispose());

  const run = (tool: string, input: Record<string, unknown> = {}) =>
    rt.dispatcher.run({ tool, input, caller: as("USER"), door: "runtime" });

  /** Registers a tool that fails with `kinds[n-1]` on attempt n and succeeds after them. */
  function flaky(name: string, kinds: ErrorKind[], retry?: Parameters<App["retryPolicy"]>[1]) {
    const calls: number[] = [];
    app.tool(
      { name, description: "Fails a few times, then succeeds.", input: z.object({}), ...(retry ? { retry } : {}) },
      (_i, ctx) => {
        calls.push(ctx.attempt);
        const kind = kinds[ctx.attempt - 1];
        if (kind) throw new ToolError(`attempt ${ctx.attempt}: ${kind}`, { kind });
        return { attempt: ctx.attempt };
      },
    );
    return calls;
  }

  async function eventsOf(runId: string) {
    return rt.runs.events({ runId }, 0);
  }

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

  describe("failures that are never retried", () => {
    it("should fail a returned toolResult({ isError: true }) and never retry it", async () => {
      let calls = 0;
      app.tool(
        {
          name: "says_no",
          description: "Reports an error.",
          input: z.object({}),
          retry: { maxAttempts: 5, idempotent: true, retryable: true, backoff: FAST },
        },
        () => {
          calls++;
          return toolResult({
            isError: true,
            errorMessage: "the upstream said no",
            errorKind: "UNAVAILABLE",
            content: [{ type: "text", text: "no" }],
            details: { code: 503 },
          });
        },
      );
      const done = await run("says_no");
      expect(calls).toBe(1);
      expect(done).toMatchObject({
        status: "FAILED",
        isError: true,
        errorKind: "UNAVAILABLE",
        errorMessage: "the upstream said no",
        content: [{ type: "text", text: "no" }],
        details: { code: 503 },
      });
      const stored = (await rt.runs.get(done.id))!;
      expect(stored).toMatchObject({ status: "FAILED", errorKind: "UNAVAILABLE", details: { code: 503 } });
      expect(stored.attempts).toEqual([
        expect.objectContaining({ number: 1, errorKind: "UNAVAILABLE", waitSeconds: null }),
      ]);
      expect((await eventsOf(done.id)).map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
    });

    it("should record a returned error result without a kind as UPSTREAM", async () => {
      app.tool({ name: "says_no_plain", description: "Reports an error.", input: z.object({}) }, () =>
        toolResult({ isError: true }),
      );
      expect(await run("says_no_plain")).toMatchObject({
        status: "FAILED",
        isError: true,
        errorKind: "UPSTREAM",
        errorMessage: "the tool reported an error",
      });
    });

    it("should fail INTERNAL naming each issue when the output does not match the output schema", async () => {
      let calls = 0;
      app.tool(
        {
          name: "bad_output",
          description: "Returns the wrong shape.",
          input: z.object({}),
          output: z.object({ count: z.number(), items: z.array(z.string()) }),
          retry: { maxAttempts: 3, idempotent: true, retryable: true, backoff: FAST },
        },
        () => {
          calls++;
          return { count: "three", items: [1] };
        },
      );
      const done = await run("bad_output");
      expect(calls).toBe(1);
      expect(done).toMatchObject({ status: "FAILED", isError: true, errorKind: "INTERNAL" });
      expect(done.errorMessage).toContain("does not match its output schema");
      expect(done.errorMessage).toContain("/count: must be number");
      expect(done.errorMessage).toContain("/items/0: must be string");
      const stored = (await rt.runs.get(done.id))!;
      expect(stored).toMatchObject({ status: "FAILED", errorKind: "INTERNAL", errorMessage: done.errorMessage });
      expect(stored.attempts).toEqual([
        expect.objectContaining({
          number: 1,
          errorKind: "INTERNAL",
          errorMessage: done.errorMessage,
          waitSeconds: null,
        }),
      ]);
    });

    it("should fail INTERNAL when a tool with an output schema returns no structured data", async () => {
      app.tool(
        {
          name: "no_data",
          description: "Returns text only.",
          input: z.object({}),
          output: z.object({ n: z.number() }),
        },
        () => "just text",
      );
      const done = await run("no_data");
      expect(done).toMatchObject({ status: "FAILED", errorKind: "INTERNAL" });
      expect(done.errorMessage).toContain("no structured data");
    });

    it("should fail INTERNAL, store the run and never retry when a body returns a value JSON cannot carry", async () => {
      let calls = 0;
      app.tool(
        {
          name: "garbage",
          description: "Returns a function.",
          input: z.object({}),
          retry: { maxAttempts: 3, idempotent: true, retryable: ["INTERNAL"], backoff: FAST },
        },
        () => {
          calls++;
          return () => "not data";
        },
      );
      const done = await run("garbage");
      expect(calls).toBe(1);
      expect(done).toMatchObject({
        status: "FAILED",
        errorKind: "INTERNAL",
        errorMessage: "the tool's result cannot be encoded as JSON (a function)",
      });
      expect(await rt.runs.get(done.id)).toMatchObject({ status: "FAILED", errorKind: "INTERNAL", data: null });
    });

    it("should succeed when the output matches the output schema", async () => {
      app.tool(
        {
          name: "good_output",
          description: "Returns the right shape.",
          input: z.object({}),
          output: z.object({ n: z.number() }),
        },
        () => ({ n: 1 }),
      );
      expect(await run("good_output")).toMatchObject({ status: "SUCCEEDED", data: { n: 1 } });
    });
  });

  describe("cancellation", () => {
    it("should cancel a run during its backoff wait, run no further attempt and store each attempt once", async () => {
      let calls = 0;
      let runId: string | undefined;
      app.tool(
        {
          name: "slow_retry",
          description: "Fails, then waits long before retrying.",
          input: z.object({}),
          retry: { maxAttempts: 3, idempotent: true, retryable: true, backoff: { initialSeconds: 30 } },
        },
        (_i, ctx) => {
          calls++;
          runId = ctx.runId;
          throw new ToolError("try later", { kind: "UNAVAILABLE" });
        },
      );
      const pending = run("slow_retry");
      for (let i = 0; i < 200; i++) {
        if (runId && (await eventsOf(runId)).some((e) => e.type === "ATTEMPT_FAILED")) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      const cancelled = await rt.dispatcher.cancel(runId!);
      expect(cancelled).toMatchObject({ status: "CANCELLED", errorKind: "CANCELLED" });
      expect((await pending).status).toBe("CANCELLED");
      expect(calls).toBe(1);
      const stored = (await rt.runs.get(runId!))!;
      expect(stored.status).toBe("CANCELLED");
      expect(stored.attempts).toEqual([
        expect.objectContaining({ number: 1, errorKind: "UNAVAILABLE", waitSeconds: 30 }),
      ]);
      expect((await eventsOf(runId!)).map((e) => e.type)).toEqual(["RUN_STARTED", "ATTEMPT_FAILED", "RUN_FINISHED"]);
    });
  });
});
