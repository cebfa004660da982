import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import { ToolError } from "../../src/errors.ts";
import { z } from "zod";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";

describe("the dispatch chokepoint", () => {
  let rt: TestRuntime;
  let app: App;
  let calls: number;

  beforeEach(async () => {
    app = new App();
    calls = 0;
    app.tool({ name: "double", description: "Double a number.", input: z.object({ n: z.number() }) }, ({ n }) => {
      calls++;
      return { doubled: n * 2 };
    });
    app.tool({ name: "boom", description: "Always throws.", input: z.object({}) }, () => {
      calls++;
      throw new Error("database password is hunter2");
    });
    rt = await testRuntime({ app });
  });
  afterEach(() => rt.dispose());

  it("should run a tool and persist a SUCCEEDED run that reads back", async () => {
    const run = await rt.dispatcher.run({ tool: "double", input: { n: 21 }, caller: as("USER"), door: "runtime" });
    expect(run.status).toBe("SUCCEEDED");
    expect(run.data).toEqual({ doubled: 42 });
    expect(run.content).toEqual([{ type: "text", text: '{"doubled":42}' }]);
    const back = await rt.runs.get(run.id);
    expect(back).toMatchObject({
      status: "SUCCEEDED",
      data: { doubled: 42 },
      door: "runtime",
      attempts: [{ number: 1, errorKind: null }],
    });
  });

  it("should reject an unknown tool as a FAILED NOT_FOUND run, recorded for audit", async () => {
    const run = await rt.dispatcher.run({ tool: "nope", input: {}, caller: as("USER"), door: "runtime" });
    expect(run).toMatchObject({ status: "FAILED", errorKind: "NOT_FOUND" });
    expect(run.errorMessage).toContain('"nope"');
    expect((await rt.runs.get(run.id))?.errorKind).toBe("NOT_FOUND");
  });

  it("should list every invalid argument with its path and never run the body", async () => {
    const run = await rt.dispatcher.run({
      tool: "double",
      input: { n: "x", extra: 1 },
      caller: as("USER"),
      door: "runtime",
    });
    expect(run).toMatchObject({ status: "FAILED", errorKind: "INVALID_INPUT" });
    const issues = (run.details as { issues: { path: string; message: string }[] }).issues;
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: "/n", message: "must be number" },
        { path: "/extra", message: "is not an allowed property" },
      ]),
    );
    expect(calls).toBe(0);
  });

  it("should mask an unexpected throw as INTERNAL without leaking its message", async () => {
    const run = await rt.dispatcher.run({ tool: "boom", input: {}, caller: as("USER"), door: "runtime" });
    expect(run).toMatchObject({ status: "FAILED", errorKind: "INTERNAL" });
    expect(JSON.stringify(run)).not.toContain("hunter2");
  });

  it("should return the first run for a re-issued idempotency key without running the body again", async () => {
    const first = await rt.dispatcher.run({
      tool: "double",
      input: { n: 1 },
      caller: as("USER"),
      door: "runtime",
      idempotencyKey: "k1",
    });
    const second = await rt.dispatcher.run({
      tool: "double",
      input: { n: 1 },
      caller: as("USER"),
      door: "runtime",
      idempotencyKey: "k1",
    });
    expect(second.id).toBe(first.id);
    expect(calls).toBe(1);
    const other = await rt.dispatcher.run({
      tool: "double",
      input: { n: 1 },
      caller: as("ADMIN"),
      door: "runtime",
      idempotencyKey: "k1",
    });
    expect(other.id).not.toBe(first.id);
  });

  it("should make a concurrent duplicate wait for the first run and return it", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    app.tool({ name: "slow", description: "Waits for a gate.", input: z.object({}) }, async () => {
      calls++;
      await gate;
      return "done";
    });
    const a = rt.dispatcher.run({
      tool: "slow",
      input: {},
      caller: as("USER"),
      door: "runtime",
      idempotencyKey: "same",
    });
    await until("the first run to be running", () => calls === 1);
    const b = rt.dispatcher.run({
      tool: "slow",
      input: {},
      caller: as("USER"),
      door: "runtime",
      idempotencyKey: "same",
    });
    await new Promise((r) => setTimeout(r, 50));
    release();
    const [ra, rb] = await Promise.all([a, b]);
    expect(rb.id).toBe(ra.id);
    expect(rb.status).toBe("SUCCEEDED");
    expect(calls).toBe(1);
  });

  it("should cancel a running attempt and not retry it", async () => {
    app.tool(
      {
        name: "hang",
        description: "Waits until aborted.",
        input: z.object({}),
        retry: { maxAttempts: 3, idempotent: true, retryable: true, backoff: { initialSeconds: 0 } },
      },
      (_i, ctx) =>
        new Promise((_, reject) => {
          calls++;
          ctx.signal.addEventListener("abort", () => reject(new ToolError("aborted", { kind: "UNAVAILABLE" })));
        }),
    );
    const pending = rt.dispatcher.run({ tool: "hang", input: {}, caller: as("USER"), door: "runtime" });
    let running;
    for (let i = 0; i < 50 && !running; i++) {
      await new Promise((r) => setTimeout(r, 20));
      running = (await rt.runs.list({ tool: "hang" }, 1))[0];
    }
    const cancelled = await rt.dispatcher.cancel(running!.id);
    expect(cancelled).toMatchObject({ status: "CANCELLED", errorKind: "CANCELLED" });
    expect((await pending).status).toBe("CANCELLED");
    expect(calls).toBe(1);
  });
});
