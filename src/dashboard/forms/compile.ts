import { dereference, validate, type OutputUnit, type Schema } from "@cfworker/json-schema";
import { ROOT_SCHEMA_PREFIX, withIdRefPrefix } from "@rjsf/utils";
import "./formats.ts";

/** Where cfworker finds a schema by its absolute URI (every `$id`, anchor and JSON pointer in it). */
export type Lookup = Record<string, Schema | boolean>;

/**
 * A schema made ready to validate with: cfworker's own copy of it (dereferencing marks
 * the schema objects it is given with where they live, so the form's objects are never
 * handed over) and the table its `$ref`s resolve through.
 */
export interface Compiled {
  schema: Schema | boolean;
  lookup: Lookup;
}

/** Tool schemas are JSON Schema draft 2020-12 (`z.toJSONSchema`): the validator speaks that draft. */
const DRAFT = "2020-12";

/** One compiled copy per schema object the form hands in; a schema dropped by the form is dropped here too. */
const standalone = new WeakMap<object, Compiled>();

/** Per root schema: its own lookup (under rjsf's root id), and the subschemas checked against it. */
const rooted = new WeakMap<object, { lookup: Lookup; schemas: WeakMap<object, Compiled> }>();

function copy<S>(schema: S): S {
  return structuredClone(schema);
}

/** `schema` on its own: its `$ref`s point inside itself. */
export function compile(schema: Schema | boolean): Compiled {
  if (typeof schema !== "object" || schema === null) return { schema, lookup: {} };
  let compiled = standalone.get(schema);
  if (!compiled) {
    const own = copy(schema);
    compiled = { schema: own, lookup: dereference(own) };
    standalone.set(schema, compiled);
  }
  return compiled;
}

/**
 * `schema` as a part of `rootSchema`: as in @rjsf/validator-ajv8, its local `$ref`s
 * (`#/$defs/x`) are rewritten to point into the root schema, registered under
 * `ROOT_SCHEMA_PREFIX`; the root is dereferenced once, each subschema once.
 */
export function compileAgainst(schema: Schema | boolean, rootSchema: Schema): Compiled {
  if (typeof schema !== "object" || schema === null) return { schema, lookup: {} };
  let root = rooted.get(rootSchema);
  if (!root) {
    root = { lookup: dereference({ ...copy(rootSchema), $id: ROOT_SCHEMA_PREFIX }), schemas: new WeakMap() };
    rooted.set(rootSchema, root);
  }
  let compiled = root.schemas.get(schema);
  if (!compiled) {
    // withIdRefPrefix copies every object and array on its way, so cfworker marks its own copy.
    const own = withIdRefPrefix(schema) as Schema;
    compiled = { schema: own, lookup: dereference(own, Object.create(root.lookup) as Lookup) };
    root.schemas.set(schema, compiled);
  }
  return compiled;
}

/**
 * Every problem of `instance` (a JSON value, see `jsonInstance`), not only the first:
 * cfworker's output units, the summaries of subschemas ("a subschema had errors") with
 * them. Throws for a `$ref` that points nowhere.
 */
export function problems(compiled: Compiled, instance: unknown): OutputUnit[] {
  return validate(instance, compiled.schema, DRAFT, compiled.lookup, false).errors;
}
