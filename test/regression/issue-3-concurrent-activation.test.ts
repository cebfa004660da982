import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { requirePostgres } from "../helpers/databases.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/** PostgreSQL (READ COMMITTED) is where two activations could interleave; CI=true requires it. */
const ready = await requirePostgres();

describe.skipIf(!ready)("concurrent manifest activation on PostgreSQL", () => {
  let a: TestRuntime;
  let b: TestRuntime;

  beforeEach(async () => {
    const app = new App();
    app.tool({ name: "t", description: "A tool.", input: z.object({}) }, () => "ok");
    a = await testRuntime({ app, kind: "postgres", config: { demo: false } });
    b = await testRuntime({ app, databaseUrl: a.config.databaseUrl, config: { demo: false } });
  });
  afterEach(async () => {
    await b.close();
    await a.dispose();
  });

  it("should leave exactly one manifest active however activations interleave", async () => {
    const names = ["m1", "m2", "m3", "m4"];
    for (const name of names) await a.manifests.put({ name, document: {} }, undefined, as("ADMIN"));
    for (let round = 0; round < 5; round++) {
      await Promise.all(names.map((name, i) => (i % 2 ? a : b).manifests.activate(name, as("ADMIN"))));
      expect(await a.db.manifest.count({ where: { active: true } })).toBe(1);
    }
  });
});
