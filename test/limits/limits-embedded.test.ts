import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { ToolError } from "../../src/errors.ts";
import type { RunRecord } from "../../src/dispatch/run-record.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";

/**
 * Flow control on the embedded default (docs/flow-control.md): one process on SQLite, its limits counted in memory.
 * Every dispatch goes through the chokepoint as a door's would; each refusal is a stored run with its time to retry.
 */
describe("declared limits in one process on SQLite", () => {
  const runtimes: TestRuntime[] = [];
  afterEach(async () => {
    for (const rt of runtimes.splice(0)) await rt.dispose();
  });

  async function runtime(app: App, config: Record<string, unknown> = {}) {
    const rt = await testRuntime({ app, kind: "sqlite", config });
    runtimes.push(rt);
    return rt;
  }
  const dispatch = (rt: TestRuntime, tool: string, input: Record<string, unknown> = {}) =>
    rt.dispatcher.run({ tool, input, caller: as("USER"), door: "graphql" });
  const retryAfter = (r: RunRecord) => (r.details as { retryAfterSeconds?: number } | null)?.retryAfterSeconds;

  it("should never run more than 2 bodies of a tool capped at 2 under 60 concurrent dispatches, each ending SUCCEEDED or RATE_LIMITED with a retry time", async () => {
    const app = new App();
    let now = 0;
    let most = 0;
    app.tool(
      {
        name: "capped",
        description: "Counts its concurrent bodies.",
        input: z.object({}),
        limits: { concurrency: { max: 2, waitSeconds: 1 } },
      },
      async () => {
        most = Math.max(most, ++now);
        await new Promise((r) => setTimeout(r, 50));
        now--;
        return "ok";
      },
    );
    const rt = await runtime(app);
    const runs = await Promise.all(Array.from({ length: 60 }, () => dispatch(rt, "capped")));
    expect(most).toBe(2);
    const refused = runs.filter((r) => r.status !== "SUCCEEDED");
    for (const r of refused) {
      expect(r).toMatchObject({ status: "FAILED", errorKind: "RATE_LIMITED" });
      expect(retryAfter(r)).toBeGreaterThanOrEqual(1);
      expect(r.attempts).toEqual([]);
    }
    expect(refused.length).toBeGreaterThan(0);
    expect(runs.length - refused.length).toBeGreaterThanOrEqual(20);
    expect(await rt.db.run.count({ where: { tool: "capped" } })).toBe(60);
  });

  it("should admit a window of 10 dispatches a second of a tool rated 10/s (20 to 30 in 3 s), refusing the rest RATE_LIMITED without calling the body", async () => {
    const app = new App();
    let bodies = 0;
    app.tool(
      { name: "rated", description: "Counts its calls.", input: z.object({}), limits: { rate: { tokens: 10 } } },
      () => ++bodies,
    );
    const rt = await runtime(app);
    const started = Date.now();
    const ok: number[] = [];
    let refused = 0;
    while (Date.now() - started < 3000) {
      const r = await dispatch(rt, "rated");
      if (r.status === "SUCCEEDED") ok.push(Date.now() - started);
      else {
        expect(r.errorKind).toBe("RATE_LIMITED");
        expect(retryAfter(r)).toBe(1);
        refused++;
      }
    }
    // A window of 10 opens at the first dispatch after the last one closed: 3 s hold at most 3 windows (a 4th may open
    // for a dispatch checked just before the loop's end), and at least 2 however slowly a loaded machine dispatches.
    expect(ok.length).toBeLessThanOrEqual(31);
    expect(ok.length).toBeGreaterThanOrEqual(20);
    expect(bodies).toBe(ok.length);
    expect(refused).toBeGreaterThan(0);
  });

  it("should stop every body of a tool for 3 s after one upstream answer with Retry-After 3, answering UNAVAILABLE with the time left", async () => {
    const app = new App();
    const calls: number[] = [];
    app.tool(
      {
        name: "upstream",
        description: "Answers 429 with Retry-After 3 once, then succeeds.",
        input: z.object({}),
        limits: { breaker: { failures: 5, coolDownSeconds: 30 } },
      },
      () => {
        calls.push(Date.now());
        if (calls.length === 1)
          throw new ToolError("429 Too Many Requests", { kind: "RATE_LIMITED", retryAfterSeconds: 3 });
        return "ok";
      },
    );
    const rt = await runtime(app);
    const first = await dispatch(rt, "upstream");
    expect(first).toMatchObject({ status: "FAILED", errorKind: "RATE_LIMITED" });
    const opened = calls[0];
    const refused: RunRecord[] = [];
    let succeeded: RunRecord | undefined;
    while (!succeeded) {
      const r = await dispatch(rt, "upstream");
      if (r.status === "SUCCEEDED") succeeded = r;
      else refused.push(r);
      if (!succeeded) await new Promise((res) => setTimeout(res, 100));
    }
    expect(calls).toHaveLength(2);
    expect(calls[1] - opened).toBeGreaterThanOrEqual(2900);
    expect(refused.length).toBeGreaterThan(10);
    for (const r of refused) {
      expect(r).toMatchObject({ status: "FAILED", errorKind: "UNAVAILABLE" });
      expect(r.errorMessage).toMatch(/circuit breaker is open/);
      expect(retryAfter(r)).toBeGreaterThanOrEqual(1);
      expect(retryAfter(r)).toBeLessThanOrEqual(3);
    }
  });

  it("should open a breaker after 3 failures in a row, let one trial through after the cool-down, open again when it fails, and close when the next trial succeeds", async () => {
    const app = new App();
    let calls = 0;
    app.tool(
      {
        name: "flaky",
        description: "Fails UNAVAILABLE four times, then succeeds.",
        input: z.object({}),
        limits: { breaker: { failures: 3, coolDownSeconds: 1 } },
      },
      () => {
        if (++calls <= 4) throw new ToolError("the upstream is down", { kind: "UNAVAILABLE" });
        return "ok";
      },
    );
    const rt = await runtime(app);
    for (let i = 0; i < 3; i++) expect((await dispatch(rt, "flaky")).errorMessage).toBe("the upstream is down");
    const open = await dispatch(rt, "flaky");
    expect(open.errorMessage).toMatch(/circuit breaker is open/);
    expect(retryAfter(open)).toBe(1);
    expect(calls).toBe(3);
    const afterCoolDown = async () => {
      for (;;) {
        const r = await dispatch(rt, "flaky");
        if (!/circuit breaker/.test(r.errorMessage ?? "")) return r;
        await new Promise((res) => setTimeout(res, 50));
      }
    };
    // The trial fails: open again at once, without three more failures.
    expect((await afterCoolDown()).errorMessage).toBe("the upstream is down");
    expect(calls).toBe(4);
    expect((await dispatch(rt, "flaky")).errorMessage).toMatch(/circuit breaker is open/);
    // The next trial succeeds: closed, and every dispatch after goes through.
    expect((await afterCoolDown()).status).toBe("SUCCEEDED");
    expect((await Promise.all([1, 2, 3].map(() => dispatch(rt, "flaky")))).map((r) => r.status)).toEqual([
      "SUCCEEDED",
      "SUCCEEDED",
      "SUCCEEDED",
    ]);
    expect(calls).toBe(8);
  });

  it("should hold a retry under a retry policy while the tool's breaker is open, and retry once it is half-open", async () => {
    const app = new App();
    const at: number[] = [];
    app.tool(
      {
        name: "retried",
        description: "Fails UNAVAILABLE twice, then succeeds.",
        input: z.object({}),
        retry: { maxAttempts: 5, idempotent: true, backoff: { initialSeconds: 0.01, multiplier: 1 } },
        limits: { breaker: { failures: 2, coolDownSeconds: 1 } },
      },
      () => {
        at.push(Date.now());
        if (at.length <= 2) throw new ToolError("the upstream is down", { kind: "UNAVAILABLE" });
        return "ok";
      },
    );
    const rt = await runtime(app);
    const run = await dispatch(rt, "retried");
    expect(run.status).toBe("SUCCEEDED");
    expect(run.attempts.map((a) => a.errorKind)).toEqual(["UNAVAILABLE", "UNAVAILABLE", null]);
    // The second failure opened the breaker for 1 s: the third attempt waited for it, not for the 10 ms backoff.
    expect(at[2] - at[1]).toBeGreaterThanOrEqual(950);
    expect(at[1] - at[0]).toBeLessThan(500);
  });

  it("should keep background runs of a tool capped at 1 QUEUED while another holds the slot, and run them one at a time", async () => {
    const app = new App();
    const gates: (() => void)[] = [];
    let now = 0;
    let most = 0;
    app.tool(
      {
        name: "one_at_a_time",
        description: "Waits for the test.",
        input: z.object({}),
        limits: { concurrency: { max: 1 } },
      },
      async () => {
        most = Math.max(most, ++now);
        await new Promise<void>((r) => gates.push(r));
        now--;
        return "ok";
      },
    );
    const rt = await runtime(app);
    const queued = await Promise.all(
      [1, 2, 3].map(() =>
        rt.dispatcher.run({ tool: "one_at_a_time", input: {}, caller: as("USER"), door: "graphql", background: true }),
      ),
    );
    expect(queued.map((r) => r.status)).toEqual(["QUEUED", "QUEUED", "QUEUED"]);
    const statuses = async () =>
      (await rt.db.run.findMany({ where: { tool: "one_at_a_time" }, select: { status: true } }))
        .map((r) => r.status)
        .sort();
    for (let released = 0; released < 3; released++) {
      await until("one body to hold the slot", () => gates.length === 1);
      expect(await statuses()).toEqual(
        [...Array(released).fill("SUCCEEDED"), "RUNNING", ...Array(2 - released).fill("QUEUED")].sort(),
      );
      gates.shift()!();
    }
    await until("every run to end", async () => (await statuses()).every((s) => s === "SUCCEEDED"));
    expect(most).toBe(1);
  });

  it("should refuse a dispatch past TAI_MAX_IN_FLIGHT at once with UNAVAILABLE, retryable after 1 s, storing nothing", async () => {
    const app = new App();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    app.tool({ name: "held", description: "Waits for the test.", input: z.object({}) }, async () => {
      await gate;
      return "ok";
    });
    const rt = await runtime(app, { maxInFlight: 3 });
    const held = Array.from({ length: 3 }, () => dispatch(rt, "held"));
    await expect(dispatch(rt, "held")).rejects.toMatchObject({
      code: "UNAVAILABLE",
      retryable: true,
      retryAfterSeconds: 1,
      httpStatus: 503,
      message: expect.stringMatching(/3 dispatches open \(TAI_MAX_IN_FLIGHT\)/),
    });
    // In-process doors are not shed: a tool's child runs and the CLI go on.
    release();
    expect((await Promise.all(held)).map((r) => r.status)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
    expect(await rt.db.run.count({ where: { tool: "held" } })).toBe(3);
    expect((await dispatch(rt, "held")).status).toBe("SUCCEEDED");
  });
});
