import { useState } from "react";
import { JsonEditor } from "../../components/json-editor.tsx";
import { ErrorNote, ForbiddenNote } from "../../components/notes.tsx";
import { SchemaForm } from "../../components/schema-form.tsx";
import { useClient, useConnection } from "../../connection.tsx";
import { CreatePresetMutation, UpdatePresetMutation, type Preset } from "../../api/composition.ts";
import { codeOf, messageOf } from "../../api/errors.ts";
import { ToolsQuery } from "../../api/tools.ts";
import { useAction } from "../../api/use-action.ts";
import { useQuery } from "../../api/use-query.ts";
import { canAuthorOver, type Tier } from "../../api/viewer.ts";

/** The base's input schema with nothing required: the baked inputs are any subset of it. */
function bakeable(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!schema) return { type: "object" };
  const { required: _, $schema: __, ...rest } = schema;
  return rest;
}

/**
 * Creates a preset, or saves a new version of one with `expectedVersion` (the version
 * this editor opened): a save in between is refused as CONFLICT, not overwritten.
 */
export function PresetEditor({ preset, onSaved }: { preset: Preset | null; onSaved(): void }) {
  const client = useClient();
  const { viewer } = useConnection();
  const tools = useQuery(ToolsQuery, {});
  const [name, setName] = useState(preset?.name ?? "");
  const [description, setDescription] = useState(preset?.description ?? "");
  const [baseTool, setBaseTool] = useState(preset?.baseTool ?? "");
  const [baked, setBaked] = useState<unknown>(preset?.fixedKwargs ?? {});
  const [asJson, setAsJson] = useState(false);
  const { busy, error, run } = useAction();
  const bases = (tools.data?.tools ?? []).filter((t) => t.name !== preset?.name);
  const base = bases.find((t) => t.name === baseTool);
  const forbidden = base && !canAuthorOver(viewer, base.tier as Tier);

  const save = (fixedKwargs: unknown) => {
    const input = {
      name: name.trim(),
      description: description.trim(),
      baseTool,
      fixedKwargs: (fixedKwargs ?? {}) as Record<string, unknown>,
    };
    return run(
      async () => {
        if (preset)
          await client.request(UpdatePresetMutation, { name: preset.name, input, expectedVersion: preset.version });
        else await client.request(CreatePresetMutation, { input });
        onSaved();
      },
      (e) =>
        codeOf(e) === "CONFLICT"
          ? `${messageOf(e)} (someone saved it since this editor opened version ${preset?.version}: reopen it from the list)`
          : messageOf(e),
    );
  };

  const submitLabel = busy ? "Saving…" : preset ? `Save as version ${preset.version + 1}` : "Create preset";
  const toggle = (
    <button type="button" className="link" onClick={() => setAsJson(!asJson)}>
      {asJson ? "Edit as a form" : "Edit as JSON"}
    </button>
  );
  return (
    <section className="panel" aria-label="Preset editor">
      <header>
        <h2>{preset ? `Edit ${preset.name}` : "New preset"}</h2>
        {preset && <span className="muted">editing version {preset.version}</span>}
      </header>
      <div className="body">
        <label className="field-inline">
          <span>Name</span>
          <input value={name} onChange={(e) => setName(e.target.value)} disabled={!!preset} aria-label="Preset name" />
        </label>
        <label className="field-inline">
          <span>Description</span>
          <input value={description} onChange={(e) => setDescription(e.target.value)} aria-label="Preset description" />
        </label>
        <label className="field-inline">
          <span>Base tool</span>
          <select value={baseTool} onChange={(e) => setBaseTool(e.target.value)} aria-label="Base tool">
            <option value="">choose a tool…</option>
            {bases.map((t) => (
              <option key={t.name} value={t.name}>
                {t.name} ({t.tier.toLowerCase()})
              </option>
            ))}
          </select>
        </label>
        {forbidden && (
          <ForbiddenNote>Only an ADMIN may author a preset over a {base.tier.toLowerCase()} tool.</ForbiddenNote>
        )}
        {base && !forbidden && (
          <div className="stack">
            <h4>Baked inputs</h4>
            <p className="muted">
              Fill the inputs to bake in; callers of the preset no longer pass them. A string “!ENV NAME” is read from
              the server's environment when the preset runs, and is never shown.
            </p>
            {asJson ? (
              <>
                <JsonEditor id="preset-kwargs" value={baked} onChange={setBaked} rows={5} />
                <div className="form-actions">
                  <button
                    className="primary"
                    disabled={busy || baked === undefined || !name.trim()}
                    onClick={() => void save(baked)}
                  >
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
                onChange={setBaked}
                onSubmit={save}
                submitLabel={submitLabel}
                disabled={busy || !name.trim()}
              >
                {toggle}
              </SchemaForm>
            )}
          </div>
        )}
        <ErrorNote error={error} />
      </div>
    </section>
  );
}
