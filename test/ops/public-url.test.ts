import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { requirePostgres, testDbKind } from "../helpers/databases.ts";

/**
 * TAI_PUBLIC_URL behind a load balancer (docs/deploy.md §"The load balancer"): the
 * callback links a parked run hands out name the public URL, not the instance that made
 * them, and whichever instance the balancer picks answers them. Here instance B stands
 * in for the balancer's choice. Runs on the database TAI_TEST_DB selects.
 */
const ready = testDbKind() !== "postgres" || (await requirePostgres());

describe.skipIf(!ready)("callback links behind a load balancer", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("should name TAI_PUBLIC_URL in a callback link and resume the run on whichever instance receives the POST", async () => {
    const app = new App();
    const links: string[] = [];
    app.tool(
      {
        name: "request_review",
        description: "Asks a reviewer, who answers at callback_url.",
        input: z.object({ doc: z.string(), callback_url: z.string() }),
      },
      ({ callback_url }) => {
        links.push(callback_url);
        return "review requested";
      },
    );
    const b = await testRuntime({ app, config: { demo: false } });
    cleanup.push(() => b.dispose());
    const serverB: TaiServer = buildApp(b);
    const publicUrl = (await serverB.start(0, "127.0.0.1")).replace(/\/graphql$/, "");
    cleanup.push(() => serverB.stop());
    const a: TestRuntime = await testRuntime({
      app,
      databaseUrl: b.config.databaseUrl,
      config: { demo: false, publicUrl },
    });
    cleanup.push(() => a.close());

    await a.manifests.put(
      {
        name: "review",
        document: {
          extensions: {
            request_review: [
              [{ name: "ask_external", config: { answerFormat: { type: "object", required: ["verdict"] } } }],
            ],
          },
        },
      },
      undefined,
      as("ADMIN"),
    );
    await a.manifests.activate("review", as("ADMIN"));
    await b.stored.sync.refreshIfStale();
    const parked = await a.dispatcher.run({
      tool: "request_review_ask_external",
      input: { doc: "spec.md" },
      caller: as("USER"),
      door: "runtime",
    });
    expect(parked.status).toBe("PARKED");
    expect(links[0].startsWith(`${publicUrl}/callbacks/`)).toBe(true);

    const answered = await fetch(links[0], {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ verdict: "approved" }),
    });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual({ runId: parked.id, status: "SUCCEEDED" });
    expect(await a.runs.get(parked.id)).toMatchObject({ status: "SUCCEEDED", data: { verdict: "approved" } });
  });
});
