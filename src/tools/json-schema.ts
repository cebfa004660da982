import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { Ajv as AjvDraft07 } from "ajv";
import addFormatsModule from "ajv-formats";
import type { Issue } from "../errors.ts";

/** A JSON Schema object (draft 2020-12). */
export type JsonSchema = Record<string, unknown>;

const addFormats = addFormatsModule as unknown as <A extends Ajv2020 | AjvDraft07>(ajv: A) => A;

// strict: false — schemas come from zod and from tool authors, who may use annotation
// keywords ajv does not know. It also means an unknown format is ignored with a warning
// rather than refused: zod emits formats (cuid, nanoid, emoji…) that ajv-formats lacks.
const newAjv = () => addFormats(new Ajv2020({ allErrors: true, strict: false, validateFormats: true }));
// Draft-07 schemas are compiled by Ajv's draft-07 engine: an MCP server's input
// schemas declare `"$schema": "http://json-schema.org/draft-07/schema#"` (docs/connectors.md §8),
// and 2020-12 reads some of their keywords differently (`items` as a list, `definitions`).
const newDraft07Ajv = () => addFormats(new AjvDraft07({ allErrors: true, strict: false, validateFormats: true }));
const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;

/** The engine for a schema's declared dialect: draft-07 by its own, anything else as 2020-12. */
const isDraft07 = (schema: JsonSchema) => typeof schema.$schema === "string" && DRAFT_07.test(schema.$schema);

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
  readonly draft07: AjvDraft07 = newDraft07Ajv();
  private readonly byObject = new WeakMap<object, ValidateFunction>();
  /** In use order, least recent first: content → the compiled function and the object Ajv holds. */
  private readonly byContent = new Map<
    string,
    { fn: ValidateFunction; schema: JsonSchema; engine: Ajv2020 | AjvDraft07 }
  >();

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
      const engine = this.engineFor(schema);
      entry = { fn: engine.compile(schema), schema, engine };
      this.evict(this.max - 1);
    }
    this.byContent.set(key, entry);
    this.byObject.set(schema, entry.fn);
    return entry.fn;
  }

  /** The engine of a schema's dialect (its `$schema`). */
  engineFor(schema: JsonSchema): Ajv2020 | AjvDraft07 {
    return isDraft07(schema) ? this.draft07 : this.ajv;
  }

  private evict(keep: number): void {
    for (const [key, { schema, engine }] of this.byContent) {
      if (this.byContent.size <= keep) return;
      this.byContent.delete(key);
      engine.removeSchema(schema);
    }
  }
}

const compiler = new SchemaCompiler();

/**
 * Ajv-compiles a schema once per distinct content (bounded, see {@link SchemaCompiler}); throws when it does not
 * compile.
 */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  return compiler.compile(schema);
}

/**
 * Meta-validates a schema against its dialect (draft 2020-12, or draft-07 when it declares it) and compiles it; returns
 * the problems.
 */
export function schemaProblems(schema: unknown, where = ""): Issue[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema))
    return [{ path: where, message: "must be a JSON Schema object" }];
  try {
    // Throws (rather than reporting) for a `$schema` it has no meta-schema for, e.g. draft-04.
    const engine = compiler.engineFor(schema as JsonSchema);
    if (!engine.validateSchema(schema)) return toIssues(engine.errors ?? [], where);
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
