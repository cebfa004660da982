import { afterEach, describe, expect, it } from "vitest";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { mayReadMetrics } from "../../src/server/ops-routes.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { get, sample } from "./support.ts";
import { freePort } from "../helpers/cli.ts";
import { until } from "../graphql/support.ts";
import type { Config } from "../../src/config.ts";
import { MAX_TOOL_LABELS, Metrics, OTHER_TOOLS } from "../../src/ops/metrics.ts";
import { newRun } from "../../src/dispatch/run-record.ts";

/**
 * `/metrics` (docs/deploy.md §"Metrics"): Prometheus text, `tai42_` names, counters that
 * move with dispatches through any door, and the TAI_METRICS access rule. Each runtime
 * has its own registry. Runs on the database TAI_TEST_DB selects.
 */

const DISPATCH = /* GraphQL */ `
  mutation ($tool: String!, $input: JSONObject!) {
    dispatch(input: { tool: $tool, input: $input }) {
      status
    }
  }
`;

describe("/metrics", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function started(config: Partial<Config> = {}): Promise<{ rt: TestRuntime; base: string; server: TaiServer }> {
    const rt = await testRuntime({ config });
    cleanup.push(() => rt.dispose());
    const server = buildApp(rt);
    const base = (await server.start(0, "127.0.0.1")).replace(/\/graphql$/, "");
    cleanup.push(() => server.stop());
    return { rt, base, server };
  }

  it("should count dispatches by tool, status and door, time them, and count attempts and retries", async () => {
    const { rt, base } = await started();
    const gql = gqlClient(rt);
    const scrape = async () => (await get(`${base}/metrics`))!.text;
    const before = await scrape();
    expect(
      sample(before, "tai42_dispatches_total", { tool: "echo", status: "SUCCEEDED", door: "graphql" }),
    ).toBeUndefined();

    for (let i = 0; i < 2; i++)
      expect((await gql(DISPATCH, { tool: "echo", input: { text: "hi" } })).data).toEqual({
        dispatch: { status: "SUCCEEDED" },
      });
    await gql(DISPATCH, { tool: "no_such_tool_4711", input: {} });
    await rt.dispatcher.run({
      tool: "flaky",
      input: { failures: 2 },
      caller: { role: "USER", keyName: null, keyId: null },
      door: "cli",
    });

    const after = await scrape();
    expect(sample(after, "tai42_dispatches_total", { tool: "echo", status: "SUCCEEDED", door: "graphql" })).toBe(2);
    expect(sample(after, "tai42_dispatch_duration_seconds_count", { tool: "echo", door: "graphql" })).toBe(2);
    // A name that is not on the surface counts under one label: callers cannot grow the label set.
    expect(after).not.toContain("no_such_tool_4711");
    expect(sample(after, "tai42_dispatches_total", { tool: "(unknown)", status: "FAILED", door: "graphql" })).toBe(1);
    expect(sample(after, "tai42_dispatches_total", { tool: "flaky", status: "SUCCEEDED", door: "cli" })).toBe(1);
    expect(sample(after, "tai42_attempts_total", { tool: "flaky" })).toBe(3);
    expect(sample(after, "tai42_retries_total", { tool: "flaky" })).toBe(2);
    expect(sample(after, "tai42_attempts_total", { tool: "echo" })).toBe(2);
    // The run log's group commit, the instance's heartbeat and the surface it serves.
    expect(sample(after, "tai42_event_log_batch_size_count")).toBeGreaterThan(0);
    expect(sample(after, "tai42_event_log_commit_seconds_count")).toBeGreaterThan(0);
    expect(sample(after, "tai42_heartbeat_age_seconds")).toBeGreaterThanOrEqual(0);
    expect(sample(after, "tai42_runs_in_flight", { kind: "tool" })).toBe(0);
    expect(sample(after, "tai42_subscribers", { kind: "runEvent" })).toBe(0);
    expect(sample(after, "tai42_surface_version")).toBe(0);
    expect(sample(after, "tai42_redis_errors_total")).toBe(0);
    expect(after).toContain("# TYPE tai42_dispatch_duration_seconds histogram");
  });

  it("should count tools past the label bound as (other), however many presets come and go", async () => {
    const m = new Metrics();
    for (let i = 0; i < MAX_TOOL_LABELS + 50; i++) {
      const run = {
        ...newRun({ tool: `preset_${i}`, input: {}, door: "graphql", callerRole: "USER", callerKey: null }),
        status: "SUCCEEDED" as const,
      };
      m.dispatched(run, "graphql", 0.01);
    }
    const text = await m.text();
    const tools = new Set([...text.matchAll(/^tai42_dispatches_total\{[^}]*tool="([^"]*)"/gm)].map((x) => x[1]));
    expect(tools.size).toBe(MAX_TOOL_LABELS + 1);
    expect(sample(text, "tai42_dispatches_total", { tool: OTHER_TOOLS, status: "SUCCEEDED", door: "graphql" })).toBe(
      50,
    );
  });

  it("should keep each runtime's counters apart in one process", async () => {
    const one = await started();
    const two = await started();
    await one.rt.dispatcher.run({
      tool: "echo",
      input: { text: "x" },
      caller: { role: "USER", keyName: null, keyId: null },
      door: "runtime",
    });
    expect(
      sample((await get(`${one.base}/metrics`))!.text, "tai42_dispatches_total", { tool: "echo", door: "runtime" }),
    ).toBe(1);
    expect(
      sample((await get(`${two.base}/metrics`))!.text, "tai42_dispatches_total", { tool: "echo", door: "runtime" }),
    ).toBeUndefined();
  });

  it("should count subscribers closed for lagging, by kind", async () => {
    const { rt, base } = await started();
    const sub = rt.bus.subscribe("toolsChanged", { bufferSize: 2 });
    expect(sample((await get(`${base}/metrics`))!.text, "tai42_subscribers", { kind: "toolsChanged" })).toBe(1);
    for (let i = 0; i < 5; i++) rt.bus.publish("toolsChanged", { at: String(i) });
    await expect(sub.next()).rejects.toMatchObject({ code: "SUBSCRIBER_LAGGING" });
    const text = (await get(`${base}/metrics`))!.text;
    expect(sample(text, "tai42_subscribers_lagging_closed_total", { kind: "toolsChanged" })).toBe(1);
    expect(sample(text, "tai42_subscribers", { kind: "toolsChanged" })).toBe(0);
  });

  it("should count Redis errors while Redis is out of reach", async () => {
    const { base } = await started({ redisUrl: `redis://127.0.0.1:${await freePort()}` });
    await until(
      "a Redis error to be counted",
      async () => (sample((await get(`${base}/metrics`))!.text, "tai42_redis_errors_total") ?? 0) > 0,
    );
  });

  it("should serve an ADMIN key only under TAI_METRICS=admin, even from loopback", async () => {
    const { rt, base } = await started({ metrics: "admin" });
    const admin = await rt.keys.create("scraper", "ADMIN");
    const user = await rt.keys.create("someone", "USER");
    expect((await get(`${base}/metrics`))?.status).toBe(401);
    expect((await get(`${base}/metrics`, { authorization: `Bearer ${user}` }))?.status).toBe(403);
    expect((await get(`${base}/metrics`, { authorization: "Bearer not-a-key" }))?.status).toBe(401);
    const ok = await get(`${base}/metrics`, { authorization: `Bearer ${admin}` });
    expect(ok?.status).toBe(200);
    expect(ok?.text).toContain("tai42_dispatches_total");
  });

  it("should answer 404 under TAI_METRICS=off", async () => {
    const { base } = await started({ metrics: "off" });
    expect((await get(`${base}/metrics`))?.status).toBe(404);
  });

  it("should admit loopback peers and ADMIN keys by default, everyone when public, nobody when off", () => {
    expect(mayReadMetrics("loopback", "127.0.0.1", null)).toBe(true);
    expect(mayReadMetrics("loopback", "::ffff:127.0.0.1", null)).toBe(true);
    expect(mayReadMetrics("loopback", "::1", null)).toBe(true);
    expect(mayReadMetrics("loopback", "10.0.0.7", null)).toBe(false);
    expect(mayReadMetrics("loopback", "10.0.0.7", "USER")).toBe(false);
    expect(mayReadMetrics("loopback", "10.0.0.7", "ADMIN")).toBe(true);
    expect(mayReadMetrics("admin", "127.0.0.1", null)).toBe(false);
    expect(mayReadMetrics("public", "10.0.0.7", null)).toBe(true);
    expect(mayReadMetrics("off", "127.0.0.1", "ADMIN")).toBe(false);
  });
});
