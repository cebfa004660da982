import {
  ANY_OF_KEY,
  getByPath,
  getUiOptions,
  ONE_OF_KEY,
  PROPERTIES_KEY,
  toPath,
  type FormContextType,
  type RJSFSchema,
  type RJSFValidationError,
  type StrictRJSFSchema,
  type UiSchema,
} from "@rjsf/utils";
import type { RawError } from "./raw-errors.ts";

/**
 * The title a field goes by in messages, as @rjsf/validator-ajv8 finds it: the
 * uiSchema's `ui:title` at the field's path, else the `title` of the field's schema (in
 * the schema that failed, else by the same path in the root schema).
 */
function fieldTitle<T, S extends StrictRJSFSchema, F extends FormContextType>(
  path: string[],
  uiSchema: UiSchema<T, S, F> | undefined,
  parentSchema: Record<string, unknown> | undefined,
  rootSchema: S | undefined,
): string | undefined {
  const name = path[path.length - 1];
  const fromUi = getUiOptions<T, S, F>(getByPath<UiSchema<T, S, F> | undefined>(uiSchema, path)).title;
  if (fromUi) return fromUi;
  const fromParent = getByPath<string | undefined>(parentSchema, [PROPERTIES_KEY, name, "title"]);
  if (fromParent) return fromParent;
  return getByPath<string | undefined>(rootSchema, [...path.flatMap((p) => [PROPERTIES_KEY, p]), "title"]);
}

/**
 * ajv-shaped errors as rjsf's, as @rjsf/validator-ajv8's `transformRJSFValidationErrors`
 * makes them: `property` is the data path in dots (`.items.0.name`; a missing required
 * property's own name appended), `name` the keyword, `stack` the message with the
 * field's title when it has one.
 */
export function toRjsfErrors<
  T = unknown,
  S extends StrictRJSFSchema = RJSFSchema,
  F extends FormContextType = FormContextType,
>(errors: RawError[], uiSchema?: UiSchema<T, S, F>, rootSchema?: S): RJSFValidationError[] {
  const list = errors.map(
    ({ instancePath, keyword, params, schemaPath, parentSchema, message: raw }): RJSFValidationError => {
      let message = raw;
      let property = instancePath.replace(/\//g, ".");
      let stack = `${property} ${message}`.trim();
      let title = "";
      const at = property.split(".").filter(Boolean);
      const named = [
        ...(typeof params.deps === "string" ? params.deps.split(", ") : []),
        params.missingProperty,
        params.property,
      ].filter((p): p is string => typeof p === "string" && p !== "");
      if (named.length > 0) {
        for (const name of named) {
          const found = fieldTitle<T, S, F>([...at, name], uiSchema, parentSchema, rootSchema);
          if (found) {
            message = message.replace(`'${name}'`, `'${found}'`);
            title = found;
          }
        }
        stack = message;
      } else {
        const found =
          getUiOptions<T, S, F>(getByPath<UiSchema<T, S, F> | undefined>(uiSchema, toPath(property))).title ??
          (parentSchema?.title as string | undefined);
        if (found) {
          stack = `'${found}' ${message}`.trim();
          title = found;
        }
      }
      if ("missingProperty" in params)
        property = property ? `${property}.${params.missingProperty}` : String(params.missingProperty);
      return { name: keyword, property, message, params, stack, schemaPath, title };
    },
  );
  return withoutDuplicates(list);
}

/**
 * The same message twice under one `anyOf`/`oneOf` (each branch failing alike) is said
 * once, as @rjsf/validator-ajv8's `filterDuplicateErrors` does.
 */
function withoutDuplicates(errors: RJSFValidationError[]): RJSFValidationError[] {
  const kept: RJSFValidationError[] = [];
  for (const error of errors) {
    const path = error.schemaPath ?? "";
    const branch = [path.indexOf(`/${ANY_OF_KEY}/`), path.indexOf(`/${ONE_OF_KEY}/`)].find((i) => i > 0);
    const prefix = branch === undefined ? undefined : path.slice(0, branch);
    if (prefix === undefined || !kept.some((e) => e.message === error.message && e.schemaPath?.startsWith(prefix)))
      kept.push(error);
  }
  return kept;
}
