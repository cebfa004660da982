import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { ApiError } from "../../src/errors.ts";
import { freshDatabase, testDbKind } from "../helpers/databases.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until, within } from "../graphql/support.ts";

/**
 * A re-issued idempotency key waiting on an instance for a first run another instance executes, when the waiting
 * instance stops (docs/run-lifecycle.md §8): the stop answers it UNAVAILABLE, retryable, "send the request again with
 * the same key", instead of leaving it to the listener's close; sent again to the instance holding the run, it is
 * answered the outcome.
 */
describe("a re-issued key on an instance that stops", () => {
  const runtimes: TestRuntime[] = [];
  const drops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const rt of runtimes.splice(0).reverse()) await rt.close();
    for (const d of drops.splice(0)) await d();
  });

  it("should be answered UNAVAILABLE, retryable, at the stop's drain, and the outcome once sent again", async () => {
    const database = await freshDatabase(testDbKind());
    drops.push(database.drop);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const runtime = async () => {
      const app = new App();
      app.tool({ name: "gated", description: "Waits for the test.", input: z.object({}) }, async () => {
        await gate;
        return "done";
      });
      const rt = await testRuntime({ app, databaseUrl: database.url, kind: testDbKind() });
      runtimes.push(rt);
      return rt;
    };
    const holder = await runtime();
    const stopping = await runtime();
    const req = { tool: "gated", input: {}, caller: as("USER"), door: "runtime" as const, idempotencyKey: "k" };

    let id!: string;
    const first = holder.dispatcher.run({ ...req, onRun: (runId) => (id = runId) });
    await until("the first run to be stored", async () => id !== undefined && (await holder.db.run.count()) === 1);
    let followed: string | undefined;
    const follow = stopping.dispatcher.run({ ...req, onRun: (runId) => (followed = runId) }).catch((e: unknown) => e);
    await until("the re-issued key to follow the first run", async () => followed === id);

    await within("the stopping instance's drain", stopping.drain(), 3000);
    const answer = await within("the follower's answer", follow, 1000);
    expect(answer).toBeInstanceOf(ApiError);
    expect((answer as ApiError).code).toBe("UNAVAILABLE");
    expect((answer as ApiError).message).toMatch(/shutting down .* send the request again with the same key/);
    expect(answer).toMatchObject({ retryable: true, retryAfterSeconds: 1 });
    // Sent again to the stopped instance, it is refused as every new dispatch there is: not run.
    expect(await stopping.dispatcher.run(req)).toMatchObject({ status: "FAILED", errorKind: "UNAVAILABLE" });

    release();
    expect(await first).toMatchObject({ id, status: "SUCCEEDED" });
    expect(await holder.dispatcher.run(req)).toMatchObject({ id, status: "SUCCEEDED" });
    expect(await holder.db.run.count({ where: { status: "SUCCEEDED" } })).toBe(1);
  });
});
