import { useState } from "react";
import { ErrorNote, ForbiddenNote } from "../../components/notes.tsx";
import { useConnection } from "../../connection.tsx";
import type { Preset } from "../../api/composition.ts";
import { ToolsQuery } from "../../api/tools.ts";
import { useQuery } from "../../api/use-query.ts";
import { canAuthorOver, type Tier } from "../../api/viewer.ts";
import { BakedInputs } from "./preset-baked-inputs.tsx";
import { usePresetSave } from "./use-preset-save.ts";

/**
 * Creates a preset, or saves a new version of one with `expectedVersion` (the version
 * this editor opened): a save in between is refused as CONFLICT, not overwritten.
 */
export function PresetEditor({ preset, onSaved }: { preset: Preset | null; onSaved(): void }) {
  const { viewer } = useConnection();
  const tools = useQuery(ToolsQuery, {});
  const [name, setName] = useState(preset?.name ?? "");
  const [description, setDescription] = useState(preset?.description ?? "");
  const [baseTool, setBaseTool] = useState(preset?.baseTool ?? "");
  const [baked, setBaked] = useState<unknown>(preset?.fixedKwargs ?? {});
  const [asJson, setAsJson] = useState(false);
  const { busy, error, save: saveInput } = usePresetSave(preset, onSaved);
  const bases = (tools.data?.tools ?? []).filter((t) => t.name !== preset?.name);
  const base = bases.find((t) => t.name === baseTool);
  const forbidden = base && !canAuthorOver(viewer, base.tier as Tier);

  const save = (fixedKwargs: unknown) =>
    saveInput({
      name: name.trim(),
      description: description.trim(),
      baseTool,
      fixedKwargs: (fixedKwargs ?? {}) as Record<string, unknown>,
    });

  const submitLabel = busy ? "Saving…" : preset ? `Save as version ${preset.version + 1}` : "Create preset";
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
          <BakedInputs
            base={base}
            baked={baked}
            onBaked={setBaked}
            asJson={asJson}
            onAsJson={setAsJson}
            disabled={busy || !name.trim()}
            submitLabel={submitLabel}
            onSave={save}
          />
        )}
        <ErrorNote error={error} />
      </div>
    </section>
  );
}
