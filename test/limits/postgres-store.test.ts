import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { ToolError } from "../../src/errors.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { requirePostgres } from "../helpers/databases.ts";

/** Limits counted in PostgreSQL when no Redis is configured (docs/flow-control.md §4). Needs PostgreSQL. */
const withPostgres = await requirePostgres();

describe.skipIf(!withPostgres)("limits in PostgreSQL without Redis", () => {
  const runtimes: TestRuntime[] = [];
  afterEach(async () => {
    for (const rt of runtimes.splice(0).reverse()) await rt.dispose();
  });
  const dispatch = (rt: TestRuntime, tool: string, caller = as("USER")) =>
    rt.dispatcher.run({ tool, input: {}, caller, door: "graphql" });

  it("should open a breaker on every instance on PostgreSQL without Redis, the store kept", async () => {
    const app = new App();
    app.tool(
      {
        name: "down",
        description: "fails",
        input: z.object({}),
        limits: { breaker: { failures: 1, coolDownSeconds: 60 } },
      },
      () => {
        throw new ToolError("down", { kind: "UNAVAILABLE" });
      },
    );
    const a = await testRuntime({ app, kind: "postgres", config: { redisUrl: undefined } });
    runtimes.push(a);
    const b = await testRuntime({
      app,
      kind: "postgres",
      databaseUrl: a.config.databaseUrl,
      config: { redisUrl: undefined },
    });
    runtimes.push(b);
    expect((await dispatch(a, "down")).errorMessage).toBe("down");
    expect((await dispatch(a, "down")).errorMessage).toMatch(/circuit breaker is open/);
    const onB = await dispatch(b, "down");
    expect(a.flow.backend.degraded).toBe(false);
    expect(b.flow.backend.degraded).toBe(false);
    expect(onB.errorMessage).toMatch(/circuit breaker is open/);
  });

  it("should count a per-key rate across tools in PostgreSQL without degrading", async () => {
    const app = new App();
    app.tool(
      {
        name: "kr",
        description: "ok",
        input: z.object({}),
        limits: { rate: { tokens: 2, intervalSeconds: 60, per: "key:*" } },
      },
      () => "ok",
    );
    app.tool(
      {
        name: "kr2",
        description: "ok",
        input: z.object({}),
        limits: { rate: { tokens: 2, intervalSeconds: 60, per: "key:*" } },
      },
      () => "ok",
    );
    const a = await testRuntime({ app, kind: "postgres", config: { redisUrl: undefined } });
    runtimes.push(a);
    expect((await dispatch(a, "kr")).status).toBe("SUCCEEDED");
    expect((await dispatch(a, "kr2")).status).toBe("SUCCEEDED");
    expect((await dispatch(a, "kr")).errorKind).toBe("RATE_LIMITED");
    expect(a.flow.backend.degraded).toBe(false);
  });
});
