import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { freshDatabase, testDbKind } from "../helpers/databases.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";

/** `slow` outlives the shutdown grace on its first attempt; later attempts end at once. */
function app(bodies: { attempt: number }[], idempotent: boolean) {
  const a = new App();
  a.tool(
    {
      name: "slow",
      description: "Outlives the grace on its first attempt.",
      input: z.object({}),
      tier: "write",
      ...(idempotent
        ? {
            retry: {
              maxAttempts: 2,
              idempotent: true,
              retryable: true,
              backoff: { initialSeconds: 0.01, multiplier: 1, capSeconds: 0.01 },
            },
          }
        : {}),
    },
    async (_i, ctx) => {
      bodies.push({ attempt: ctx.attempt });
      if (ctx.attempt === 1)
        await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
      return { attempt: ctx.attempt };
    },
  );
  return a;
}

describe("shutdown hands back", () => {
  const runtimes: TestRuntime[] = [];
  afterEach(async () => {
    for (const rt of runtimes.splice(0).reverse()) await rt.dispose().catch(() => {});
  });

  async function pair(idempotent: boolean) {
    const bodies: { attempt: number }[] = [];
    const db = await freshDatabase(testDbKind());
    const options = { app: app(bodies, idempotent), config: { demo: false, shutdownGraceSeconds: 0.5 } };
    const a = await testRuntime({ ...options, databaseUrl: db.url });
    runtimes.push(a);
    return { a, bodies, db, options };
  }

  it("should queue again, at the grace deadline, an idempotent run still executing, for another instance to finish as its next attempt", async () => {
    const { a, bodies, db, options } = await pair(true);
    const run = await a.dispatcher.run({
      tool: "slow",
      input: {},
      caller: as("USER"),
      door: "graphql",
      background: true,
    });
    await until("the first attempt to start", () => bodies.length === 1);
    await a.close();
    const b = await testRuntime({ ...options, databaseUrl: db.url });
    runtimes.push(b);
    await until("the handed-back run to end", async () => (await b.runs.get(run.id))?.status === "SUCCEEDED", 20_000);
    const done = await b.runs.get(run.id);
    expect(done?.attempts.map((x) => [x.number, x.errorKind])).toEqual([
      [1, "UNAVAILABLE"],
      [2, null],
    ]);
    expect(done?.attempts[0].errorMessage).toMatch(/^handed back: the instance .* shut down before the run ended$/);
    expect((await b.runs.events({ runId: run.id }, 0)).map((e) => e.type)).toEqual([
      "RUN_QUEUED",
      "RUN_STARTED",
      "RUN_QUEUED",
      "RUN_STARTED",
      "RUN_FINISHED",
    ]);
    expect(bodies.map((x) => x.attempt)).toEqual([1, 2]);
    await db.drop();
  });

  it("should cancel at the grace deadline a run whose tool claims no idempotency, as before", async () => {
    const { a, bodies, db } = await pair(false);
    const run = await a.dispatcher.run({
      tool: "slow",
      input: {},
      caller: as("USER"),
      door: "graphql",
      background: true,
    });
    await until("the attempt to start", () => bodies.length === 1);
    const probe = await testRuntime({ databaseUrl: db.url, duties: "none", config: { demo: false } });
    runtimes.push(probe);
    await a.close();
    expect(await probe.runs.get(run.id)).toMatchObject({
      status: "CANCELLED",
      errorMessage: "cancelled by server shutdown",
    });
    await db.drop();
  });
});
