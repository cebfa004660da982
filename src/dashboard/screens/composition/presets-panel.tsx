import { useState } from "react";
import { TierBadge } from "../../components/badges.tsx";
import { JsonView } from "../../components/json-view.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import { PresetsQuery, type Preset } from "../../api/composition.ts";
import { useQuery } from "../../api/use-query.ts";
import { PresetEditor } from "./preset-editor.tsx";

/** Stored presets, and an editor to create one or save a new version of one. */
export function PresetsPanel() {
  const presets = useQuery(PresetsQuery, {});
  const [editing, setEditing] = useState<Preset | "new" | null>(null);
  const list = presets.data?.presets ?? [];
  return (
    <div className="split">
      <section className="panel" aria-label="Presets">
        <header>
          <h2>Presets</h2>
          <button className="primary small" onClick={() => setEditing("new")}>
            New preset
          </button>
        </header>
        <ErrorNote error={presets.error} />
        <div className="body flush">
          {presets.data && !list.length && (
            <div className="empty">No preset yet: a preset is a tool with some inputs baked in.</div>
          )}
          <ul className="item-list">
            {list.map((p) => (
              <li key={p.name}>
                <button
                  className={`item${editing !== "new" && editing?.name === p.name ? " active" : ""}`}
                  onClick={() => setEditing(p)}
                  data-preset={p.name}
                >
                  <span className="spread">
                    <strong className="mono">{p.name}</strong>
                    <span className="row">
                      <TierBadge tier={p.tier} />
                      <span className="faint">v{p.version}</span>
                    </span>
                  </span>
                  <span className="muted">
                    over <span className="mono">{p.baseTool}</span> · {p.description}
                  </span>
                  <JsonView value={p.fixedKwargs} />
                </button>
              </li>
            ))}
          </ul>
        </div>
      </section>
      {editing ? (
        <PresetEditor
          key={editing === "new" ? "new" : `${editing.name}@${editing.version}`}
          preset={editing === "new" ? null : editing}
          onSaved={() => {
            setEditing(null);
            presets.reload();
          }}
        />
      ) : (
        <div className="panel empty">Pick a preset to edit it, or create one.</div>
      )}
    </div>
  );
}
