import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { Issue } from "../errors.ts";

/** A JSON Schema object (draft 2020-12). */
export type JsonSchema = Record<string, unknown>;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

// strict: false — schemas come from zod and from tool authors, who may use annotation
// keywords ajv does not know. It also means an unknown format is ignored with a warning
// rather than refused: zod emits formats (cuid, nanoid, emoji…) that ajv-formats lacks.
const newAjv = () => addFormats(new Ajv2020({ allErrors: true, strict: false, validateFormats: true }));

/** Distinct schemas kept compiled by default; see {@link SchemaCompiler}. */
export const DEFAULT_SCHEMA_CACHE_SIZE = 1000;

/**
 * Compiles JSON Schemas once per distinct content, keeping at most `max` of them: the
 * least recently used is dropped, from this cache and from Ajv's own (Ajv otherwise keeps
 * every schema object it ever compiled). Derived schemas (presets, branches) are rebuilt
 * as new objects on every surface rebuild, so a long-running server would otherwise grow
 * without bound. A schema object already compiled keeps its function (a weak map), so a
 * tool's own schema is not recompiled when its content was dropped.
 */
export class SchemaCompiler {
  readonly ajv: Ajv2020 = newAjv();
  private readonly byObject = new WeakMap<object, ValidateFunction>();
  /** In use order, least recent first: content → the compiled function and the object Ajv holds. */
  private readonly byContent = new Map<string, { fn: ValidateFunction; schema: JsonSchema }>();

  constructor(readonly max = DEFAULT_SCHEMA_CACHE_SIZE) {}

  /** How many distinct schemas are compiled and held. */
  get size(): number {
    return this.byContent.size;
  }

  /** Ajv-compiles a schema once per distinct content; throws when it does not compile. */
  compile(schema: JsonSchema): ValidateFunction {
    const known = this.byObject.get(schema);
    if (known) return known;
    const key = JSON.stringify(schema);
    let entry = this.byContent.get(key);
    if (entry) this.byContent.delete(key);
    else {
      entry = { fn: this.ajv.compile(schema), schema };
      this.evict(this.max - 1);
    }
    this.byContent.set(key, entry);
    this.byObject.set(schema, entry.fn);
    return entry.fn;
  }

  private evict(keep: number): void {
    for (const [key, { schema }] of this.byContent) {
      if (this.byContent.size <= keep) return;
      this.byContent.delete(key);
      this.ajv.removeSchema(schema);
    }
  }
}

const compiler = new SchemaCompiler();
const ajv = compiler.ajv;

/** Ajv-compiles a schema once per distinct content (bounded, see {@link SchemaCompiler}); throws when it does not compile. */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  return compiler.compile(schema);
}

/** Meta-validates a schema against draft 2020-12 and compiles it; returns the problems. */
export function schemaProblems(schema: unknown, where = ""): Issue[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return [{ path: where, message: "must be a JSON Schema object" }];
  try {
    // Throws (rather than reporting) for a `$schema` it has no meta-schema for, e.g. draft-07.
    if (!ajv.validateSchema(schema)) return toIssues(ajv.errors ?? [], where);
    compileSchema(schema as JsonSchema);
  } catch (e) {
    return [{ path: where, message: `does not compile: ${(e as Error).message}` }];
  }
  return [];
}

/** Validates a value; returns every problem as `{path, message}`. */
export function validate(schema: JsonSchema, value: unknown): Issue[] {
  const fn = compileSchema(schema);
  return fn(value) ? [] : toIssues(fn.errors ?? []);
}

function toIssues(errors: ErrorObject[], prefix = ""): Issue[] {
  return errors.map((e) => {
    let path = prefix + e.instancePath;
    let message = e.message ?? "is invalid";
    if (e.keyword === "required") {
      path = `${path}/${(e.params as { missingProperty: string }).missingProperty}`;
      message = "is required";
    } else if (e.keyword === "additionalProperties") {
      path = `${path}/${(e.params as { additionalProperty: string }).additionalProperty}`;
      message = "is not an allowed property";
    } else if (e.keyword === "enum") {
      message = `must be one of ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}`;
    }
    return { path, message };
  });
}
