import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { STRUCTURE_COLUMNS, VALUE_COLUMNS } from "../../src/db/value-columns.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * Every model of the schema with its JSON columns, read from prisma/sqlite/schema.prisma (the PostgreSQL schema has the
 * same models).
 */
function models(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const m of readFileSync(new URL("../../prisma/sqlite/schema.prisma", import.meta.url), "utf8").matchAll(
    /^model (\w+) \{([\s\S]*?)^\}/gm,
  )) {
    out.set(
      m[1],
      [...m[2].matchAll(/^\s+(\w+)\s+Json\??/gm)].map((c) => c[1]),
    );
  }
  return out;
}

describe("which stored columns are values (docs/security-model.md §3)", () => {
  it("should decide, for every model of the schema, which columns are values and which JSON columns are structure", () => {
    const schema = models();
    expect([...schema.keys()].sort()).toEqual(Object.keys(VALUE_COLUMNS).sort());
    for (const [model, json] of schema) {
      for (const column of json)
        expect({
          model,
          column,
          decided: column in VALUE_COLUMNS[model] || (STRUCTURE_COLUMNS[model] ?? []).includes(column),
        }).toEqual({ model, column, decided: true });
    }
  });

  describe("a write through the database client", () => {
    let rt: TestRuntime;
    beforeEach(async () => {
      rt = await testRuntime();
      rt.secrets.add("RUNNING");
    });
    afterEach(() => rt.dispose());

    it("should scrub a known secret from a row's value columns (a store key a tool chose among them) and leave its other columns whole", async () => {
      await rt.db.kvEntry.upsert({
        where: { key: "RUNNING" },
        create: { key: "RUNNING", value: { status: "RUNNING" } },
        update: {},
      });
      await rt.db.cacheEntry.create({
        data: { key: "k1", tool: "RUNNING", value: "RUNNING now", expiresAt: new Date(Date.now() + 60_000) },
      });
      expect(await rt.db.kvEntry.findUnique({ where: { key: "[redacted]" } })).toMatchObject({
        value: { status: "[redacted]" },
      });
      expect(await rt.db.cacheEntry.findUnique({ where: { key: "k1" } })).toMatchObject({
        tool: "RUNNING",
        value: "[redacted] now",
      });
    });
  });
});
