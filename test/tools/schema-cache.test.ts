import { describe, expect, it } from "vitest";
import {
  compileSchema,
  DEFAULT_SCHEMA_CACHE_SIZE,
  SchemaCompiler,
  type JsonSchema,
} from "../../src/tools/json-schema.ts";

/** A distinct schema per `n`: an object whose `n` property must equal n. */
const schemaFor = (n: number): JsonSchema => ({ type: "object", properties: { n: { const: n } }, required: ["n"] });
/** How many schema objects Ajv itself holds (its private cache; ajv 8 keeps every compiled schema there). */
const ajvHeld = (compiler: SchemaCompiler) =>
  (compiler.ajv as unknown as { _cache: Map<unknown, unknown> })._cache.size;

describe("the compiled-schema cache is bounded", () => {
  it("should keep at most its size of distinct schemas, in Ajv too, when more are compiled", () => {
    const compiler = new SchemaCompiler(5);
    const before = ajvHeld(compiler);
    for (let n = 0; n < 50; n++) compiler.compile(schemaFor(n));
    expect(compiler.size).toBe(5);
    expect(ajvHeld(compiler) - before).toBeLessThanOrEqual(5);
  });

  it("should still validate correctly after its schema was dropped and compiled again", () => {
    const compiler = new SchemaCompiler(2);
    for (let n = 0; n < 10; n++) compiler.compile(schemaFor(n));
    const again = compiler.compile(schemaFor(0));
    expect(again({ n: 0 })).toBe(true);
    expect(again({ n: 1 })).toBe(false);
    expect(compiler.size).toBe(2);
  });

  it("should drop the least recently used schema, not the one just used", () => {
    const compiler = new SchemaCompiler(2);
    const first = compiler.compile(schemaFor(1));
    const second = compiler.compile(schemaFor(2));
    expect(compiler.compile({ ...schemaFor(1) })).toBe(first);
    compiler.compile(schemaFor(3));
    expect(compiler.compile({ ...schemaFor(1) })).toBe(first);
    expect(compiler.compile({ ...schemaFor(2) })).not.toBe(second);
    expect(compiler.size).toBe(2);
  });

  it("should compile a schema once per distinct content, whatever the object", () => {
    const compiler = new SchemaCompiler();
    expect(compiler.compile(schemaFor(7))).toBe(compiler.compile(schemaFor(7)));
    expect(compiler.size).toBe(1);
  });

  it("should keep a schema object's function even after its content was dropped", () => {
    const compiler = new SchemaCompiler(1);
    const kept = schemaFor(1);
    const fn = compiler.compile(kept);
    compiler.compile(schemaFor(2));
    expect(compiler.compile(kept)).toBe(fn);
    expect(fn({ n: 1 })).toBe(true);
  });

  it("should bound the shared compiler by the default size", () => {
    expect(DEFAULT_SCHEMA_CACHE_SIZE).toBeGreaterThan(0);
    expect(compileSchema(schemaFor(42))({ n: 42 })).toBe(true);
  });
});
