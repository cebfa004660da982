import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { Issue } from "../errors.ts";

/** A JSON Schema object (draft 2020-12). */
export type JsonSchema = Record<string, unknown>;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

// strict: false — schemas come from zod and from tool authors, who may use annotation
// keywords ajv does not know. It also means an unknown format is ignored with a warning
// rather than refused: zod emits formats (cuid, nanoid, emoji…) that ajv-formats lacks.
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false, validateFormats: true }));
const byObject = new WeakMap<object, ValidateFunction>();
// Ajv keeps every schema object it compiles; derived schemas (presets, branches) are
// rebuilt as new objects on every surface rebuild, so compile once per distinct content.
const byContent = new Map<string, ValidateFunction>();

/** Ajv-compiles a schema once per distinct content; throws when it does not compile. */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  let fn = byObject.get(schema);
  if (!fn) {
    const key = JSON.stringify(schema);
    fn = byContent.get(key);
    if (!fn) {
      fn = ajv.compile(schema);
      byContent.set(key, fn);
    }
    byObject.set(schema, fn);
  }
  return fn;
}

/** Meta-validates a schema against draft 2020-12 and compiles it; returns the problems. */
export function schemaProblems(schema: unknown, where = ""): Issue[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema))
    return [{ path: where, message: "must be a JSON Schema object" }];
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
