import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { park } from "../../src/interactions/park.ts";
import { RunStore } from "../../src/dispatch/run-store.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";

/** Edge cases of caps and rates found by an adversarial review: each is a path where a slot or a token could leak. */
describe("slots and tokens at their edges (docs/flow-control.md §3)", () => {
  const runtimes: TestRuntime[] = [];
  afterEach(async () => {
    for (const rt of runtimes.splice(0)) await rt.dispose();
  });
  async function runtime(app: App, config: Record<string, unknown> = {}) {
    const rt = await testRuntime({ app, kind: "sqlite", config });
    runtimes.push(rt);
    return rt;
  }
  const dispatch = (rt: TestRuntime, tool: string, extra: Record<string, unknown> = {}) =>
    rt.dispatcher.run({ tool, input: {}, caller: as("USER"), door: "graphql", ...extra });

  it("should give a rate's token back when the concurrency cap refuses the dispatch", async () => {
    const app = new App();
    const gates: (() => void)[] = [];
    app.tool(
      {
        name: "cap_then_rate",
        description: "waits",
        input: z.object({}),
        limits: { concurrency: { max: 1, waitSeconds: 0 }, rate: { tokens: 3, intervalSeconds: 60 } },
      },
      async () => {
        await new Promise<void>((r) => gates.push(r));
        return "ok";
      },
    );
    const rt = await runtime(app);
    const blocker = dispatch(rt, "cap_then_rate");
    await until("blocker holds", () => gates.length === 1);
    const refused = [await dispatch(rt, "cap_then_rate"), await dispatch(rt, "cap_then_rate")];
    for (const r of refused) expect(r.details).toMatchObject({ limit: { reason: "concurrency" } });
    gates.shift()!();
    await blocker;
    // 3 tokens: the blocker took one, the refused two gave theirs back: two more run, the third is refused.
    for (let i = 0; i < 2; i++) {
      const next = dispatch(rt, "cap_then_rate");
      await until("its body to start", () => gates.length === 1);
      gates.shift()!();
      expect((await next).status).toBe("SUCCEEDED");
    }
    expect((await dispatch(rt, "cap_then_rate")).details).toMatchObject({ limit: { reason: "rate" } });
  });

  it("should run the resumed bodies of a parked tool capped at 1 one at a time", async () => {
    const app = new App();
    let now = 0;
    let most = 0;
    const gates: (() => void)[] = [];
    app.tool(
      {
        name: "pausing_capped",
        description: "parks, then its resume holds",
        input: z.object({}),
        pauses: true,
        limits: { concurrency: { max: 1, waitSeconds: 10 } },
        resume: async () => {
          most = Math.max(most, ++now);
          await new Promise<void>((r) => gates.push(r));
          now--;
          return "resumed";
        },
      },
      () => park({ interactions: [{ question: "go?" }] }),
    );
    const rt = await runtime(app);
    const parked = await Promise.all([1, 2, 3].map(() => dispatch(rt, "pausing_capped")));
    expect(parked.map((r) => r.status)).toEqual(["PARKED", "PARKED", "PARKED"]);
    const answers = Promise.all(
      parked.map(async (p) => {
        const [i] = await rt.interactions.forRun(p.id);
        return rt.interactions.answer(i.id, "yes", as("USER"));
      }),
    );
    for (let i = 0; i < 3; i++) {
      await until("one resumed body to hold the slot", () => gates.length === 1);
      expect(now).toBe(1);
      gates.shift()!();
    }
    await answers;
    await until("every run to end", async () => (await rt.db.run.count({ where: { status: "SUCCEEDED" } })) === 3);
    expect(most).toBe(1);
  });

  it("should give a queued run's slot back when its claim throws", async () => {
    const app = new App();
    app.tool(
      {
        name: "q_capped",
        description: "quick",
        input: z.object({}),
        limits: { concurrency: { max: 1, waitSeconds: 1 } },
      },
      () => "ok",
    );
    const rt = await runtime(app);
    const orig = RunStore.prototype.claim;
    let thrown = 0;
    RunStore.prototype.claim = async function (this: RunStore, ...args: Parameters<typeof orig>) {
      if (thrown++ === 0) throw new Error("database hiccup during claim");
      return orig.apply(this, args);
    };
    try {
      await dispatch(rt, "q_capped", { background: true });
      await until("claim attempted", () => thrown > 0);
      // The slot is given back at the claim's failure: a synchronous dispatch gets it within its 1 s wait.
      const sync = await dispatch(rt, "q_capped");
      expect(sync.status).toBe("SUCCEEDED");
    } finally {
      RunStore.prototype.claim = orig;
    }
  });

  it("should keep a per-input cap's keys short and hashed whatever the caller's values", async () => {
    const app = new App();
    app.tool(
      {
        name: "per_account",
        description: "quick",
        input: z.object({ accountId: z.string() }),
        limits: { concurrency: { max: 1, scope: "input:/accountId" } },
      },
      () => "ok",
    );
    const rt = await runtime(app);
    const big = "x".repeat(10_000);
    for (let i = 0; i < 2000; i++)
      await rt.dispatcher.run({
        tool: "per_account",
        input: { accountId: `${big}${i}` },
        caller: as("USER"),
        door: "graphql",
      });
    const holds = (rt.flow.slots as unknown as { holds: Map<string, number[]> }).holds;
    expect(Math.max(...[...holds.keys()].map((k) => k.length))).toBeLessThan(64);
  });
});
