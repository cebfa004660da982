import { afterEach, describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import { readSurfaceVersion } from "../../src/registry/surface-version.ts";
import { gatedTool } from "../dashboard/server.ts";
import { until } from "../graphql/support.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { sample } from "./support.ts";

/**
 * The gauges of `/metrics` (docs/deploy.md §"Metrics") with values that move: runs in
 * flight, the surface version and its reloads. Runs on the database TAI_TEST_DB selects.
 */
describe("the gauges of /metrics", () => {
  let rt: TestRuntime | undefined;
  afterEach(async () => {
    await rt?.dispose();
    rt = undefined;
  });

  const scrape = async (name: string, labels: Record<string, string> = {}) =>
    sample(await rt!.metrics.text(), name, labels);
  const USER = as("USER");

  it("should count a tool run in flight while it runs, and none once it ended", async () => {
    const app = new App();
    const gate = gatedTool(app);
    rt = await testRuntime({ app });
    expect(await scrape("tai42_runs_in_flight", { kind: "tool" })).toBe(0);

    const running = rt.dispatcher.run({ tool: "gated_step", input: { label: "held" }, caller: USER, door: "runtime" });
    await until("the gated run to start", () => gate.started() === 1);
    expect(await scrape("tai42_runs_in_flight", { kind: "tool" })).toBe(1);
    expect(await scrape("tai42_runs_in_flight", { kind: "agent" })).toBe(0);

    gate.release();
    expect((await running).status).toBe("SUCCEEDED");
    expect(await scrape("tai42_runs_in_flight", { kind: "tool" })).toBe(0);
  });

  it("should move the surface version and count a reload when a preset is written", async () => {
    rt = await testRuntime();
    const version = (await scrape("tai42_surface_version"))!;
    const reloads = (await scrape("tai42_surface_reloads_total"))!;
    expect(reloads).toBeGreaterThanOrEqual(1); // the load at start

    await rt.presets.create(
      { name: "greet", description: "Echo a greeting.", baseTool: "echo", fixedKwargs: { text: "hi" } },
      as("ADMIN"),
    );
    // Applied before the write returns (docs/deploy.md §"Configuration converges").
    expect(await scrape("tai42_surface_version")).toBe(version + 1);
    expect(await scrape("tai42_surface_version")).toBe(await readSurfaceVersion(rt.db));
    expect(await scrape("tai42_surface_reloads_total")).toBeGreaterThan(reloads);
  });

  it("should report no pool series on SQLite, which has no pool", async () => {
    rt = await testRuntime({ kind: "sqlite" });
    expect(await rt.metrics.text()).not.toContain("tai42_db_pool_connections{");
  });
});
