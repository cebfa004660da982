import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { ToolError } from "../../src/errors.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";

/** Waits until `name`'s breaker (failures 1, the tests' declaration) is no longer open: half-open. */
async function halfOpen(rt: TestRuntime, name: string): Promise<void> {
  const applied = [{ name, limits: { breaker: { failures: 1, coolDownSeconds: 0.5 } } }];
  await until(`${name}'s breaker to be half-open`, async () => (await rt.flow.breakerOpenSeconds(applied)) === 0);
}

describe("circuit breakers at their edges (docs/flow-control.md §2, §3)", () => {
  const runtimes: TestRuntime[] = [];
  afterEach(async () => {
    for (const rt of runtimes.splice(0)) await rt.dispose();
  });
  async function runtime(app: App) {
    const rt = await testRuntime({ app, kind: "sqlite" });
    runtimes.push(rt);
    return rt;
  }
  const dispatch = (rt: TestRuntime, tool: string, extra: Record<string, unknown> = {}) =>
    rt.dispatcher.run({ tool, input: {}, caller: as("USER"), door: "graphql", ...extra });
  const bg = async (rt: TestRuntime, tool: string) => {
    const q = await dispatch(rt, tool, { background: true });
    await until("bg run ends", async () => ["SUCCEEDED", "FAILED"].includes((await rt.runs.get(q.id))!.status));
    return (await rt.runs.get(q.id))!;
  };

  it("should forget a tool's failures when a retry of the same run succeeds", async () => {
    const app = new App();
    let calls = 0;
    app.tool(
      {
        name: "alt",
        description: "odd calls fail",
        input: z.object({}),
        retry: { maxAttempts: 2, idempotent: true, backoff: { initialSeconds: 0.01, multiplier: 1 } },
        limits: { breaker: { failures: 2, coolDownSeconds: 120 } },
      },
      () => {
        if (++calls % 2 === 1) throw new ToolError("down", { kind: "UNAVAILABLE" });
        return "ok";
      },
    );
    const rt = await runtime(app);
    const r1 = await dispatch(rt, "alt");
    const r2 = await dispatch(rt, "alt");
    const r3 = await dispatch(rt, "alt");
    expect(r1.status).toBe("SUCCEEDED");
    expect(r2.status).toBe("SUCCEEDED");
    expect(r3.status).toBe("SUCCEEDED");
  });

  it("should forget a tool's failures when a background run of it succeeds", async () => {
    const app = new App();
    let calls = 0;
    app.tool(
      {
        name: "altbg",
        description: "odd calls fail",
        input: z.object({}),
        limits: { breaker: { failures: 2, coolDownSeconds: 120 } },
      },
      () => {
        if (++calls % 2 === 1) throw new ToolError("down", { kind: "UNAVAILABLE" });
        return "ok";
      },
    );
    const rt = await runtime(app);
    // fail, ok, fail: with failures 2 in a row the breaker must stay closed.
    expect([await bg(rt, "altbg"), await bg(rt, "altbg"), await bg(rt, "altbg")].map((r) => r.status)).toEqual([
      "FAILED",
      "SUCCEEDED",
      "FAILED",
    ]);
    const after = await dispatch(rt, "altbg");
    expect(after.status).toBe("SUCCEEDED");
  });

  it("should close a half-open breaker when a background run of the tool succeeds", async () => {
    const app = new App();
    let calls = 0;
    app.tool(
      {
        name: "trialbg",
        description: "first call fails",
        input: z.object({}),
        limits: { breaker: { failures: 1, coolDownSeconds: 0.5 } },
      },
      () => {
        if (++calls === 1) throw new ToolError("down", { kind: "UNAVAILABLE" });
        return "ok";
      },
    );
    const rt = await runtime(app);
    expect((await dispatch(rt, "trialbg")).errorKind).toBe("UNAVAILABLE");
    await halfOpen(rt, "trialbg");
    const trial = await bg(rt, "trialbg");
    const next = await dispatch(rt, "trialbg");
    expect(trial.status).toBe("SUCCEEDED");
    expect(next.status).toBe("SUCCEEDED");
  });

  it("should give the half-open trial back when the rate refuses the dispatch that took it", async () => {
    const app = new App();
    let calls = 0;
    app.tool(
      {
        name: "trialrate",
        description: "first call fails",
        input: z.object({}),
        limits: { breaker: { failures: 1, coolDownSeconds: 0.5 }, rate: { tokens: 1, intervalSeconds: 2 } },
      },
      () => {
        if (++calls === 1) throw new ToolError("down", { kind: "UNAVAILABLE" });
        return "ok";
      },
    );
    const rt = await runtime(app);
    expect((await dispatch(rt, "trialrate")).errorKind).toBe("UNAVAILABLE");
    await halfOpen(rt, "trialrate");
    // Each dispatch takes the trial, is refused by the rate (spent by the first), and gives the trial back: once the
    // rate's window refills, the next one is the trial and succeeds; a trial lost would refuse it for 60 s.
    const seen: string[] = [];
    await until(
      "a dispatch to succeed once the rate refills",
      async () => {
        const r = await dispatch(rt, "trialrate");
        seen.push(r.errorKind ?? r.status);
        return r.status === "SUCCEEDED";
      },
      5000,
    );
    expect(seen[0]).toBe("RATE_LIMITED");
    expect(new Set(seen)).toEqual(new Set(["RATE_LIMITED", "SUCCEEDED"]));
  });
});
