import { useState } from "react";
import { Badge } from "../../components/badges.tsx";
import { JsonView } from "../../components/json-view.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import { Time } from "../../components/time.tsx";
import { useClient } from "../../connection.tsx";
import { ActivateManifestMutation, ManifestsQuery, type Manifest } from "../../api/composition.ts";
import { useAction } from "../../api/use-action.ts";
import { useQuery } from "../../api/use-query.ts";
import { ManifestDiff } from "./manifest-diff.tsx";
import { ManifestEditor, type EditorStart } from "./manifest-editor.tsx";

/**
 * Stored manifests: each one's document and versions; the editor writes a new one or a new version of one;
 * activating one swaps the surface, after showing what changes.
 */
export function ManifestsPanel() {
  const manifests = useQuery(ManifestsQuery, {});
  const [selected, setSelected] = useState<string | null>(null);
  const [editing, setEditing] = useState<EditorStart | null>(null);
  const list = manifests.data?.manifests ?? [];
  const current = list.find((m) => m.name === selected) ?? list.find((m) => m.active) ?? list[0];
  const active = list.find((m) => m.active) ?? null;
  return (
    <div className="split">
      <section className="panel" aria-label="Manifests">
        <header>
          <h2>Manifests</h2>
          <span className="row">
            <span className="muted">{list.length}</span>
            <button className="primary small" onClick={() => setEditing({ mode: "new" })}>
              New manifest
            </button>
          </span>
        </header>
        <ErrorNote error={manifests.error} />
        <div className="body flush">
          {manifests.data && !list.length && (
            <div className="empty">
              No manifest yet: the surface is every registered tool, preset and agent. Write one with New manifest, or
              import one with `tai manifests import FILE`.
            </div>
          )}
          <ul className="item-list">
            {list.map((m) => (
              <li key={m.name}>
                <button
                  className={`item${m.name === current?.name ? " active" : ""}`}
                  onClick={() => {
                    setSelected(m.name);
                    setEditing(null);
                  }}
                  data-manifest={m.name}
                >
                  <span className="spread">
                    <strong className="mono">{m.name}</strong>
                    <span className="row">
                      {m.active && <Badge tone="ok">active</Badge>}
                      <span className="faint">v{m.version}</span>
                    </span>
                  </span>
                  {m.description && <span className="muted">{m.description}</span>}
                </button>
              </li>
            ))}
          </ul>
        </div>
      </section>
      {editing ? (
        <ManifestEditor
          key={editing.mode === "new" ? "new" : `${editing.mode}:${editing.manifest.name}@${editing.manifest.version}`}
          start={editing}
          onSaved={(name) => {
            setEditing(null);
            setSelected(name);
            manifests.reload();
          }}
          onCancel={() => {
            setEditing(null);
            manifests.reload();
          }}
        />
      ) : current ? (
        <ManifestView
          key={`${current.name}@${current.version}`}
          manifest={current}
          active={active}
          onEdit={(mode) => setEditing({ mode, manifest: current })}
          onActivated={manifests.reload}
        />
      ) : (
        <div className="panel empty">Nothing to show.</div>
      )}
    </div>
  );
}

function ManifestView({
  manifest: m,
  active,
  onEdit,
  onActivated,
}: {
  manifest: Manifest;
  active: Manifest | null;
  onEdit(mode: "edit" | "copy"): void;
  onActivated(): void;
}) {
  const activeName = active?.name ?? null;
  const client = useClient();
  const { busy, error, run } = useAction();
  const [asking, setAsking] = useState(false);
  const activate = () =>
    run(async () => {
      await client.request(ActivateManifestMutation, { name: m.name });
      setAsking(false);
      onActivated();
    });
  return (
    <section className="panel" aria-label={`Manifest ${m.name}`}>
      <header>
        <div className="row">
          <h2 className="mono">{m.name}</h2>
          {m.active ? <Badge tone="ok">active</Badge> : <Badge>inactive</Badge>}
        </div>
        <div className="row">
          <button className="small" onClick={() => onEdit("edit")}>
            Edit
          </button>
          <button className="small" onClick={() => onEdit("copy")}>
            Copy
          </button>
          {!m.active && !asking && (
            <button className="primary" onClick={() => setAsking(true)}>
              Activate
            </button>
          )}
        </div>
      </header>
      {asking && (
        <div className="note warn" role="alertdialog" aria-label="Confirm activation">
          Activate {m.name} v{m.version}? It replaces{" "}
          {activeName ? `the active manifest ${activeName}` : "the whole registered surface"} for every caller at once:
          names it does not select leave the surface.
          <ManifestDiff current={active?.document ?? null} currentName={activeName} next={m.document} />
          <div className="row">
            <button className="primary small" onClick={activate} disabled={busy}>
              {busy ? "Activating…" : `Activate ${m.name}`}
            </button>
            <button className="small" onClick={() => setAsking(false)} disabled={busy}>
              Keep {activeName ?? "the current surface"}
            </button>
          </div>
        </div>
      )}
      <div className="body">
        <ErrorNote error={error} />
        <p className="muted">
          Version {m.version}, saved <Time at={m.updatedAt} />. {m.history.length} version
          {m.history.length === 1 ? "" : "s"} kept.
        </p>
        <JsonView value={m.document} />
      </div>
    </section>
  );
}
