import type { Schema } from "@cfworker/json-schema";
import {
  createErrorHandler,
  getDefaultFormState,
  toErrorSchema,
  unwrapErrorHandler,
  validationDataMerge,
  type CustomValidator,
  type ErrorSchema,
  type ErrorTransformer,
  type FormContextType,
  type RJSFSchema,
  type StrictRJSFSchema,
  type UiSchema,
  type ValidationData,
  type ValidatorType,
} from "@rjsf/utils";
import { compile, compileAgainst, problems } from "./compile.ts";
import { jsonInstance } from "./instance.ts";
import { rawErrors, type RawError } from "./raw-errors.ts";
import { toRjsfErrors } from "./rjsf-errors.ts";

/**
 * rjsf's validator over @cfworker/json-schema, which interprets a schema where ajv
 * (@rjsf/validator-ajv8) compiles it into code with `new Function`: the dashboard's
 * Content-Security-Policy can then forbid eval. It answers as @rjsf/validator-ajv8 does
 * (same error shapes, ajv's English messages, same handling of `customValidate` and
 * `transformErrors`), for JSON Schema draft 2020-12.
 */
export class FormValidator<
  T = unknown,
  S extends StrictRJSFSchema = RJSFSchema,
  F extends FormContextType = FormContextType,
> implements ValidatorType<T, S, F> {
  /**
   * The schema's problems with `formData`, ajv-shaped; a schema that cannot be used (a `$ref` to nowhere) is
   * `validationError`.
   */
  rawValidation<Result = RawError>(schema: S, formData?: T): { errors?: Result[]; validationError?: Error } {
    try {
      const compiled = compile(schema as Schema);
      const errors = rawErrors(compiled, problems(compiled, jsonInstance(formData)));
      return { errors: errors.length > 0 ? (errors as Result[]) : undefined };
    } catch (e) {
      return { validationError: e instanceof Error ? e : new Error(String(e)) };
    }
  }

  /**
   * The form's errors (a list, and the same by field), after `transformErrors`, with
   * what `customValidate` adds (it sees the data with every field present, as in
   * @rjsf/validator-ajv8).
   */
  validateFormData(
    formData: T | undefined,
    schema: S,
    customValidate?: CustomValidator<T, S, F>,
    transformErrors?: ErrorTransformer<T, S, F>,
    uiSchema?: UiSchema<T, S, F>,
  ): ValidationData<T> {
    const raw = this.rawValidation(schema, formData);
    let errors = toRjsfErrors<T, S, F>(raw.errors ?? [], uiSchema, schema);
    if (raw.validationError) errors = [...errors, { stack: raw.validationError.message }];
    if (typeof transformErrors === "function") errors = transformErrors(errors, uiSchema);
    let errorSchema = toErrorSchema<T>(errors);
    if (raw.validationError)
      errorSchema = { ...errorSchema, $schema: { __errors: [raw.validationError.message] } } as ErrorSchema<T>;
    if (typeof customValidate !== "function") return { errors, errorSchema };
    const full = getDefaultFormState<T, S, F>(this, schema, formData, schema, true) as T;
    const handler = customValidate(full, createErrorHandler<T>(full), uiSchema, errorSchema);
    return validationDataMerge<T>({ errors, errorSchema }, unwrapErrorHandler<T>(handler));
  }

  /**
   * Whether `formData` fits `schema`, a part of `rootSchema` whose `$ref`s point into the
   * root (rjsf asks this to pick the `oneOf`/`anyOf` branch that fits). A schema that
   * cannot be used fits nothing.
   */
  isValid(schema: S, formData: T | undefined, rootSchema: S): boolean {
    try {
      return problems(compileAgainst(schema as Schema, rootSchema as Schema), jsonInstance(formData)).length === 0;
    } catch (e) {
      console.warn("Error encountered compiling schema:", e);
      return false;
    }
  }
}

/** The dashboard's one validator, shared by its forms (its caches hold compiled schemas per schema object). */
export const formValidator = new FormValidator();
