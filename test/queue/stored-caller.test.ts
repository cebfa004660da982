import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import type { Caller } from "../../src/auth/roles.ts";
import { freshDatabase, testDbKind } from "../helpers/databases.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";

/**
 * Stored work executes as its caller is now (docs/run-lifecycle.md §11.2, docs/security-model.md §1): a queued run
 * whose key was revoked does not run; and an instance handed the job of its own re-driven run stops the body it
 * still holds before it runs the next one (§11.4).
 */
function app(bodies: { attempt: number; aborted?: boolean }[]) {
  const a = new App();
  a.tool(
    {
      name: "held",
      description: "Its first attempt waits for its signal; later ones end at once.",
      input: z.object({}),
      tier: "write",
      retry: {
        maxAttempts: 1,
        idempotent: true,
        retryable: true,
        backoff: { initialSeconds: 0.01, multiplier: 1, capSeconds: 0.01 },
      },
    },
    async (_i, ctx) => {
      const body: { attempt: number; aborted?: boolean } = { attempt: ctx.attempt };
      bodies.push(body);
      if (bodies.length === 1)
        await new Promise<void>((resolve) =>
          ctx.signal.addEventListener("abort", () => ((body.aborted = true), resolve()), { once: true }),
        );
      return { attempt: ctx.attempt };
    },
  );
  return a;
}

describe("stored work and its caller now", () => {
  const runtimes: TestRuntime[] = [];
  afterEach(async () => {
    for (const rt of runtimes.splice(0).reverse()) await rt.dispose().catch(() => {});
  });

  async function start(databaseUrl: string, bodies: { attempt: number }[]) {
    // A one-shot runtime takes no queue work: the test executes its queued runs itself.
    const rt = await testRuntime({ app: app(bodies), databaseUrl, duties: "none", config: { demo: false } });
    runtimes.push(rt);
    return rt;
  }

  it("should end FAILED PERMISSION_DENIED, without running its body, a queued run whose key was revoked since", async () => {
    const db = await freshDatabase(testDbKind());
    const bodies: { attempt: number }[] = [];
    const rt = await start(db.url, bodies);
    const caller = (await rt.keys.verify(await rt.keys.create("bob", "USER"))) as Caller;
    const run = await rt.dispatcher.run({ tool: "held", input: {}, caller, door: "graphql", background: true });
    expect(run.status).toBe("QUEUED");
    await rt.keys.revoke("bob");

    await rt.dispatcher.executeQueued(run.id);
    expect(await rt.runs.get(run.id)).toMatchObject({
      status: "FAILED",
      errorKind: "PERMISSION_DENIED",
      errorMessage: `the API key "bob" that dispatched run ${run.id} was revoked or has expired; the run did not execute`,
      callerKey: "bob",
    });
    expect(bodies).toEqual([]);
    await db.drop();
  });

  it("should stop the body it still holds of its own re-driven run before it runs the next attempt", async () => {
    const db = await freshDatabase(testDbKind());
    const bodies: { attempt: number; aborted?: boolean }[] = [];
    const a = await start(db.url, bodies);
    const b = await start(db.url, bodies);
    const caller = (await a.keys.verify(await a.keys.create("ann", "USER"))) as Caller;
    const run = await a.dispatcher.run({ tool: "held", input: {}, caller, door: "graphql", background: true });
    const first = a.dispatcher.executeQueued(run.id);
    await until("the first body to start", () => bodies.length === 1);

    // B takes A for gone and re-drives its run; A, awake, is handed the job again.
    const outcome = await b.dispatcher.settleOrphans([b.instanceId], () => "its heartbeat lapsed");
    expect(outcome.queued).toEqual([run.id]);
    await a.dispatcher.executeQueued(run.id);
    await first;

    expect(bodies).toEqual([{ attempt: 1, aborted: true }, { attempt: 2 }]);
    const done = await a.runs.get(run.id);
    expect(done?.status).toBe("SUCCEEDED");
    expect(done?.data).toEqual({ attempt: 2 });
    expect(done?.attempts.map((x) => [x.number, x.errorKind])).toEqual([
      [1, "UNAVAILABLE"],
      [2, null],
    ]);
    expect((await a.runs.events({ runId: run.id }, 0)).map((e) => e.type)).toEqual([
      "RUN_QUEUED",
      "RUN_STARTED",
      "RUN_QUEUED",
      "RUN_STARTED",
      "RUN_FINISHED",
    ]);
    await db.drop();
  });
});
