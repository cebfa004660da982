import { afterEach, describe, expect, it } from "vitest";
import { readSurfaceVersion } from "../../src/registry/surface-version.ts";
import { until } from "../graphql/support.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { sample } from "./support.ts";

/**
 * Skills are configuration like presets and manifests (docs/deploy.md §"Configuration
 * converges"): each stored write of one bumps the stored surface version in its
 * transaction, and every instance converges on it. Runs on the database TAI_TEST_DB selects.
 */
describe("a skill write and the stored surface version", () => {
  let rt: TestRuntime | undefined;
  afterEach(async () => {
    await rt?.dispose();
    rt = undefined;
  });

  it("should bump the version with each skill stored, replaced or deleted, and not with a refused write", async () => {
    rt = await testRuntime({ config: { syncSeconds: 0.2 } });
    const skill = { name: "writing", description: "The writing skill.", instructions: "Write tersely." };
    const start = await readSurfaceVersion(rt.db);

    await rt.agents.skills.put(skill, as("ADMIN"));
    expect(await readSurfaceVersion(rt.db)).toBe(start + 1);
    await rt.agents.skills.put({ ...skill, instructions: "Write at length." }, as("ADMIN"));
    expect(await readSurfaceVersion(rt.db)).toBe(start + 2);
    await rt.agents.skills.delete("writing", as("ADMIN"));
    expect(await readSurfaceVersion(rt.db)).toBe(start + 3);

    // Refused before the transaction, or rolled back with it: the version stays.
    await expect(rt.agents.skills.put({ ...skill, name: "has space" }, as("ADMIN"))).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
    });
    await expect(rt.agents.skills.put(skill, as("USER"))).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(rt.agents.skills.delete("writing", as("ADMIN"))).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await readSurfaceVersion(rt.db)).toBe(start + 3);

    // The instance converges on the stored version by its version check (TAI_SYNC_SECONDS).
    await until(
      "the instance to serve the stored version",
      async () => sample(await rt!.metrics.text(), "tai42_surface_version") === start + 3,
      5000,
    );
  });
});
