import validateMetaSchema from "tai42-meta-schema-validator";
import type { FormValidation, UiSchema } from "@rjsf/utils";

/** The draft 2020-12 meta-schema's URI: a setting declared as a `$ref` to it is itself a JSON Schema. */
export const META_SCHEMA = "https://json-schema.org/draft/2020-12/schema";

/** One problem of a schema against the meta-schema, at its JSON pointer in the schema (`/properties/a/type`). */
export interface MetaIssue {
  path: string;
  message: string;
}

/** Whether a property's schema is `{"$ref": "https://json-schema.org/draft/2020-12/schema"}` (a trailing `#` too). */
export function isMetaRef(schema: unknown): boolean {
  const ref = (schema as { $ref?: unknown } | null)?.$ref;
  return typeof ref === "string" && ref.replace(/#$/, "") === META_SCHEMA;
}

/**
 * `value`'s problems as a draft 2020-12 JSON Schema, checked by ajv's compiled meta-schema (formats aside: the
 * server checks them on save). A `type` that is neither a type name nor a list of them is one problem, not ajv's
 * three (enum, array, anyOf).
 */
export function metaSchemaIssues(value: unknown): MetaIssue[] {
  try {
    if (validateMetaSchema(value)) return [];
  } catch (e) {
    // The compiled validator recurses with the schema: a few thousand levels overflow the stack, as the field renders.
    return [{ path: "", message: `cannot be checked (${(e as Error).message}): is it nested too deeply?` }];
  }
  const errors = validateMetaSchema.errors ?? [];
  const anyOfAt = new Set(errors.filter((e) => e.keyword === "anyOf").map((e) => e.instancePath));
  const seen = new Set<string>();
  const out: MetaIssue[] = [];
  for (const e of errors) {
    if (anyOfAt.has(e.instancePath) && e.keyword !== "anyOf") continue;
    const message =
      e.keyword === "anyOf" && e.instancePath.endsWith("/type")
        ? "must be a type name (null, boolean, object, array, number, integer, string) or a list of them"
        : (e.message ?? "is invalid");
    const key = `${e.instancePath} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path: e.instancePath, message });
  }
  return out;
}

type Props = Record<string, unknown>;
const propertiesOf = (schema: unknown): Props =>
  ((schema as { properties?: unknown } | null)?.properties as Props | undefined) ?? {};

/** The uiSchema that draws every meta-schema `$ref` property (at any object depth) with the schema editor. */
export function metaSchemaUi(schema: unknown): UiSchema {
  const ui: UiSchema = {};
  for (const [name, prop] of Object.entries(propertiesOf(schema))) {
    if (isMetaRef(prop)) ui[name] = { "ui:field": "jsonSchema" };
    else if (Object.keys(propertiesOf(prop)).length) {
      const inner = metaSchemaUi(prop);
      if (Object.keys(inner).length) ui[name] = inner;
    }
  }
  return ui;
}

/**
 * Blocks a submit while a schema-editor field holds a value the meta-schema refuses (the form's own validator sees
 * those fields as "any value"); the field lists the problems themselves.
 */
export function validateMetaFields(schema: unknown, data: unknown, errors: FormValidation<unknown>): void {
  for (const [name, prop] of Object.entries(propertiesOf(schema))) {
    const value = (data as Props | null | undefined)?.[name];
    const at = (errors as unknown as Record<string, FormValidation<unknown> | undefined>)[name];
    if (!at || value === undefined) continue;
    if (isMetaRef(prop)) {
      const n = metaSchemaIssues(value).length;
      if (n) at.addError(`is not a valid JSON Schema: ${n} problem${n === 1 ? "" : "s"} (listed above)`);
    } else validateMetaFields(prop, value, at);
  }
}
