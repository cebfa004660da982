import { afterEach, describe, expect, it } from "vitest";
import { gqlClient } from "../helpers/gql.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * Surface snapshots (docs/deploy.md §"Configuration converges"): a snapshot never changes
 * once taken, a query reads one, and a mutation's result shows what it wrote. Runs on the
 * database TAI_TEST_DB selects.
 */
describe("surface snapshots", () => {
  let rt: TestRuntime | undefined;
  afterEach(async () => {
    await rt?.dispose();
    rt = undefined;
  });

  it("should keep a snapshot's entries, retry policies and active manifest as they were while the surface moves on", async () => {
    rt = await testRuntime();
    const before = rt.surface.snapshot();
    await rt.manifests.put(
      {
        name: "no-sleep",
        document: {
          tools: { exclude: ["sleep"] },
          retry: { echo: { maxAttempts: 2, idempotent: true, retryable: true } },
        },
      },
      undefined,
      as("ADMIN"),
    );
    await rt.manifests.activate("no-sleep", as("ADMIN"));
    await rt.presets.create(
      { name: "greet", description: "Echo a greeting.", baseTool: "echo", fixedKwargs: { text: "hi" } },
      as("ADMIN"),
    );

    expect(before.resolve("sleep")).toBeDefined();
    expect(before.resolve("greet")).toBeUndefined();
    expect(before.declaredOn("echo")).toBeUndefined();
    expect(before.activeManifest).toBeNull();
    const after = rt.surface.snapshot();
    expect(after.resolve("sleep")).toBeUndefined();
    expect(after.resolve("greet")).toBeDefined();
    expect(after.declaredOn("echo")?.maxAttempts).toBe(2);
    expect(after.activeManifest?.name).toBe("no-sleep");
    expect(after.version).toBeGreaterThan(before.version);
    expect(rt.surface.version).toBe(after.version);
  });

  it("should answer a mutation with what it wrote: a created preset's inherited policy, an activated manifest active", async () => {
    rt = await testRuntime();
    const gql = gqlClient(rt);
    const admin = await rt.keys.create("admin", "ADMIN");
    const created = await gql(
      `mutation { createPreset(input: { name: "flaky_twice", description: "Twice unavailable.", baseTool: "flaky", fixedKwargs: { failures: 2 } }) { retryPolicy { declaredOn } tier } }`,
      {},
      admin,
    );
    expect(created.data).toEqual({ createPreset: { retryPolicy: { declaredOn: "flaky" }, tier: "READ" } });
    await rt.manifests.put({ name: "m", document: {} }, undefined, as("ADMIN"));
    const activated = await gql(`mutation { activateManifest(name: "m") { name active } }`, {}, admin);
    expect(activated.data).toEqual({ activateManifest: { name: "m", active: true } });
    const read = await gql(
      `{ activeManifest { name } manifests { name active } tool(name: "flaky_twice") { name } }`,
      {},
      admin,
    );
    expect(read.data).toEqual({
      activeManifest: { name: "m" },
      manifests: [{ name: "m", active: true }],
      tool: { name: "flaky_twice" },
    });
  });
});
