import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { ToolError } from "../../src/errors.ts";
import { toolResult } from "../../src/tools/result.ts";
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

  const { run, eventsOf } = retryRunHelpers(
    () => rt,
    () => app,
  );

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
