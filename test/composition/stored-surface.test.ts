import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDb, type Db } from "../../src/db/client.ts";
import { Bus } from "../../src/events/bus.ts";
import { defineExtension } from "../../src/extensions/extension.ts";
import { createLogger } from "../../src/log.ts";
import { Registry } from "../../src/registry/registry.ts";
import { StoredSurface } from "../../src/composition/stored-surface.ts";
import { Surface } from "../../src/registry/surface.ts";
import { readSurfaceVersion, writeSurface } from "../../src/registry/surface-version.ts";
import { Secrets } from "../../src/secrets/secrets.ts";
import { defineTool } from "../../src/tools/define-tool.ts";
import { freshDatabase } from "../helpers/databases.ts";

/**
 * The stored part of the surface (presets and the active manifest's branches) over a real
 * database: what a write stores is applied at the next load, at the version it was read at.
 */
describe("the stored surface", () => {
  let db: Db;
  let drop: () => Promise<void>;
  let bus: Bus;
  const logLines: string[] = [];
  const stores: StoredSurface[] = [];

  const shout = defineExtension(
    {
      name: "shout",
      kind: "WRAPPER",
      description: "Upper-cases.",
      create: (t) => ({ ...t, run: async (i, c) => String(await t.run(i, c)).toUpperCase() }),
    },
    "test",
  );

  /** One instance's view: a surface over a registry with `calculate`, and its stored part. */
  function instance(id: string) {
    const registry = new Registry();
    registry.addTool(
      defineTool({
        name: "calculate",
        description: "Adds.",
        parameters: {
          type: "object",
          properties: { a: { type: "number" }, b: { type: "number" } },
          required: ["a", "b"],
        },
        execute: ({ a, b }) => Number(a) + Number(b),
      }),
    );
    const surface = new Surface([registry]);
    const stored = new StoredSurface(
      db,
      surface,
      bus,
      id,
      createLogger({}, (l) => logLines.push(l)),
      new Secrets(),
      (n) => (n === "shout" ? shout : undefined),
    );
    stores.push(stored);
    return { surface, stored };
  }

  const storePreset = (name: string, baseTool: string, fixedKwargs: Record<string, unknown>) =>
    writeSurface(db, (tx) =>
      tx.preset.create({ data: { name, description: `${name}.`, baseTool, fixedKwargs: fixedKwargs as object } }),
    );

  beforeEach(async () => {
    const fresh = await freshDatabase();
    drop = fresh.drop;
    db = (await openDb(fresh.url)).db;
    bus = new Bus();
    logLines.length = 0;
  });

  afterEach(async () => {
    for (const s of stores.splice(0)) s.close();
    await bus.close();
    await db.$disconnect();
    await drop();
  });

  it("should count configuration writes in the stored surface version, from 0", async () => {
    expect(await readSurfaceVersion(db)).toBe(0);
    await storePreset("plus_one", "calculate", { b: 1 });
    await storePreset("plus_two", "calculate", { b: 2 });
    expect(await readSurfaceVersion(db)).toBe(2);
  });

  it("should apply stored presets and the active manifest's branches at load, at the version it read", async () => {
    const { surface, stored } = instance("a");
    await storePreset("plus_one", "calculate", { b: 1 });
    await writeSurface(db, (tx) =>
      tx.manifest.create({ data: { name: "m", document: { extensions: { plus_one: ["shout"] } }, active: true } }),
    );
    await stored.load();
    expect(surface.resolve("plus_one")).toMatchObject({
      origin: "PRESET",
      baseTool: "calculate",
      policyChain: ["plus_one", "calculate"],
    });
    expect(surface.resolve("plus_one_shout")).toMatchObject({
      origin: "BRANCH",
      baseTool: "plus_one",
      extensionStack: ["shout"],
    });
    expect([stored.version, surface.version, surface.activeManifest?.name]).toEqual([2, 2, "m"]);
  });

  it("should keep a preset whose base is missing off the surface, and say so in the log", async () => {
    const { surface, stored } = instance("a");
    await storePreset("orphan", "gone", {});
    await stored.load();
    expect(surface.base("orphan")).toBeUndefined();
    expect(logLines.some((l) => l.includes("a stored preset's base is missing") && l.includes("orphan"))).toBe(true);
  });

  it("should answer loads asked for while one runs with one more load, shared by every caller", async () => {
    const { stored } = instance("a");
    await Promise.all([stored.load(), stored.load(), stored.load()]);
    expect(stored.loads).toBe(2);
  });

  it("should bring another instance up to date when the stored version moved, and only then", async () => {
    const a = instance("a");
    const b = instance("b");
    await Promise.all([a.stored.load(), b.stored.load()]);
    await storePreset("plus_one", "calculate", { b: 1 });
    await a.stored.load();
    expect(b.surface.resolve("plus_one")).toBeUndefined();
    expect(await b.stored.sync.refreshIfStale()).toBe(true);
    expect(b.surface.resolve("plus_one")?.origin).toBe("PRESET");
    expect(await b.stored.sync.refreshIfStale()).toBe(false);
  });
});
