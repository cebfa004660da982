import { JsonEditor } from "../../components/json-editor.tsx";
import { SchemaForm } from "../../components/schema-form.tsx";
import type { Tool } from "../../api/tools.ts";

/** The base's input schema with nothing required: the baked inputs are any subset of it. */
function bakeable(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!schema) return { type: "object" };
  const { required: _, $schema: __, ...rest } = schema;
  return rest;
}

/** The preset's baked inputs over its base: a form drawn from the base's input schema, or JSON, and the save button. */
export function BakedInputs({
  base,
  baked,
  onBaked,
  asJson,
  onAsJson,
  disabled,
  submitLabel,
  onSave,
}: {
  base: Tool;
  baked: unknown;
  onBaked(v: unknown): void;
  asJson: boolean;
  onAsJson(asJson: boolean): void;
  disabled: boolean;
  submitLabel: string;
  onSave(fixedKwargs: unknown): Promise<void>;
}) {
  const toggle = (
    <button type="button" className="link" onClick={() => onAsJson(!asJson)}>
      {asJson ? "Edit as a form" : "Edit as JSON"}
    </button>
  );
  return (
    <div className="stack">
      <h4>Baked inputs</h4>
      <p className="muted">
        Fill the inputs to bake in; callers of the preset no longer pass them. A string “!ENV NAME” is read from the
        server's environment when the preset runs, and is never shown.
      </p>
      {asJson ? (
        <>
          <JsonEditor id="preset-kwargs" value={baked} onChange={onBaked} rows={5} />
          <div className="form-actions">
            <button className="primary" disabled={disabled || baked === undefined} onClick={() => void onSave(baked)}>
              {submitLabel}
            </button>
            {toggle}
          </div>
        </>
      ) : (
        <SchemaForm
          id="preset-kwargs"
          schema={bakeable(base.inputSchema)}
          value={baked}
          onChange={onBaked}
          onSubmit={onSave}
          submitLabel={submitLabel}
          disabled={disabled}
        >
          {toggle}
        </SchemaForm>
      )}
    </div>
  );
}
