import type { FieldProps } from "@rjsf/utils";
import { useState, type ReactNode } from "react";
import { metaSchemaIssues } from "../forms/meta-schema.ts";

/** What a form gives its schema editors: how to draw the preview of a schema (a form of its own, without a submit). */
export interface SchemaEditorContext {
  preview?(schema: Record<string, unknown>, id: string): ReactNode;
}

function parse(text: string): { value: unknown; problem?: undefined } | { value?: undefined; problem: string } {
  if (!text.trim()) return { value: undefined };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (e) {
    return { problem: `not JSON yet: ${(e as Error).message}` };
  }
}

/**
 * The schema editor: the field of a setting declared as `{"$ref": "https://json-schema.org/draft/2020-12/schema"}`.
 * The value is a JSON Schema typed as JSON, checked against the draft 2020-12 meta-schema as it is typed (ajv's,
 * compiled at build time: no eval), each problem at its path in the schema; a valid one shows the form it draws.
 * It draws its own label and description (rjsf leaves them to a custom field); the form's errors show below it.
 */
export function SchemaEditorField(props: FieldProps) {
  const { formData, onChange, fieldPathId, disabled, readonly, registry, schema, name, required } = props;
  const [text, setText] = useState(() => (formData === undefined ? "" : JSON.stringify(formData, null, 2)));
  const parsed = parse(text);
  const issues = parsed.value === undefined ? [] : metaSchemaIssues(parsed.value);
  const id = fieldPathId.$id;
  const preview = (registry.formContext as SchemaEditorContext | undefined)?.preview;
  const drawable =
    typeof parsed.value === "object" && parsed.value !== null && !Array.isArray(parsed.value) && !issues.length;
  return (
    <div className="schema-editor" data-testid={`schema-editor-${id}`}>
      <label htmlFor={id} className="control-label">
        {schema.title ?? name}
        {required && <span className="required">*</span>}
      </label>
      {schema.description && <span className="field-description">{schema.description}</span>}
      <span className="faint">Typed as JSON, checked against the draft 2020-12 meta-schema as you type.</span>
      <textarea
        id={id}
        className="mono"
        rows={8}
        spellCheck={false}
        value={text}
        disabled={disabled || readonly}
        onChange={(e) => {
          setText(e.target.value);
          const next = parse(e.target.value);
          // Text that is not JSON yet stays the field's value (a string, which no meta-schema passes): as undefined, an
          // optional setting would be submitted without it, the text on screen silently dropped.
          onChange(next.problem ? e.target.value : next.value, fieldPathId.path);
        }}
      />
      {parsed.problem ? (
        <span className="problem bad-text">{parsed.problem}</span>
      ) : parsed.value === undefined ? null : issues.length ? (
        <ul className="issues bad-text" data-testid="meta-schema-issues" aria-label="Meta-schema problems">
          {issues.map((i, n) => (
            <li key={n} data-issue-path={i.path}>
              <code>{i.path || "/"}</code> {i.message}
            </li>
          ))}
        </ul>
      ) : (
        <span className="ok-text" data-testid="meta-schema-ok">
          A valid JSON Schema (draft 2020-12).
        </span>
      )}
      {drawable && preview && (
        <div className="schema-preview" role="group" aria-label="Schema preview">
          <h5>Preview: the form this schema draws</h5>
          {preview(parsed.value as Record<string, unknown>, `${id}-preview`)}
        </div>
      )}
    </div>
  );
}
