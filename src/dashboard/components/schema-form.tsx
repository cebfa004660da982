import Form from "@rjsf/core";
import type { RJSFSchema } from "@rjsf/utils";
import type { ReactNode } from "react";
import { metaSchemaUi, validateMetaFields } from "../forms/meta-schema.ts";
import { formValidator } from "../forms/validator.ts";
import { Fallback } from "./fallback.tsx";
import { SchemaEditorField, type SchemaEditorContext } from "./schema-editor.tsx";

/** A property declared as a `$ref` to the draft 2020-12 meta-schema is drawn with the schema editor. */
const FIELDS = { jsonSchema: SchemaEditorField };

/** The preview a schema editor shows: the form the edited schema draws, inside the outer form (so not a `<form>`). */
const EDITOR_CONTEXT: SchemaEditorContext = {
  preview: (schema, id) => (
    <SchemaForm schema={schema} id={id} submitLabel="" onSubmit={() => {}} actions={false} nested />
  ),
};

/**
 * The schema as the form draws it: `$schema` goes (the validator is 2020-12 whatever it
 * says), and a `$ref` outside the document (to a meta-schema, say), which the form
 * cannot fetch offline, becomes "any value" with its description kept.
 */
export function formSchema(schema: Record<string, unknown>): RJSFSchema {
  const { $schema: _, ...rest } = schema;
  return localRefsOnly(rest) as RJSFSchema;
}

function localRefsOnly(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(localRefsOnly);
  if (!value || typeof value !== "object") return value;
  const entries = Object.entries(value as Record<string, unknown>).filter(
    ([k, v]) => !(k === "$ref" && typeof v === "string" && !v.startsWith("#")),
  );
  return Object.fromEntries(entries.map(([k, v]) => [k, localRefsOnly(v)]));
}

export interface SchemaFormProps {
  /** A JSON Schema: a tool's inputSchema, an interaction's answerFormat, an extension's configSchema. */
  schema: Record<string, unknown>;
  /** Names the form's fields in the page (ids and test hooks); unique per page. */
  id: string;
  submitLabel: string;
  value?: unknown;
  onChange?(value: unknown): void;
  /**
   * Called with the validated value.
   * Contract: may return a promise; the form stays disabled until it settles.
   */
  onSubmit(value: unknown): void | Promise<unknown>;
  disabled?: boolean;
  /** Shown beside the submit button. */
  children?: ReactNode;
  /** The form element's id, for a button elsewhere on the page to submit it (`form.requestSubmit()`). */
  formId?: string;
  /** Draw no submit button: something else submits the form (see `formId`). @default true */
  actions?: boolean;
  /** Called when a submit finds problems (they show beside their fields). */
  onInvalid?(): void;
  /** Drawn inside another form (a schema editor's preview): a `<div>`, since a form may not hold a form. */
  nested?: boolean;
}

/**
 * A react-jsonschema-form drawn from a JSON Schema, validated (draft 2020-12, without eval) before `onSubmit`.
 * A schema the form cannot draw shows as a note, not as a broken page.
 */
export function SchemaForm(props: SchemaFormProps) {
  return (
    <Fallback key={JSON.stringify(props.schema)} what="This form">
      <DrawnForm {...props} />
    </Fallback>
  );
}

function DrawnForm({
  schema,
  id,
  submitLabel,
  value,
  onChange,
  onSubmit,
  disabled,
  children,
  formId,
  actions = true,
  onInvalid,
  nested,
}: SchemaFormProps) {
  return (
    <Form
      schema={formSchema(schema)}
      uiSchema={metaSchemaUi(schema)}
      fields={FIELDS}
      formContext={EDITOR_CONTEXT}
      customValidate={(data, errors) => {
        validateMetaFields(schema, data, errors);
        return errors;
      }}
      tagName={nested ? "div" : undefined}
      validator={formValidator}
      formData={value}
      idPrefix={id}
      id={formId}
      className="rjsf"
      disabled={disabled}
      noHtml5Validate
      showErrorList={false}
      onChange={(e) => onChange?.(e.formData)}
      onSubmit={(e) => void onSubmit(e.formData)}
      // The problems show beside their fields; without a handler the form logs them as a console error.
      onError={() => onInvalid?.()}
      data-testid={`form-${id}`}
    >
      {actions ? (
        <div className="form-actions">
          <button type="submit" className="primary" disabled={disabled}>
            {submitLabel}
          </button>
          {children}
        </div>
      ) : (
        <></>
      )}
    </Form>
  );
}
