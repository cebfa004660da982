import { useState } from "react";
import { ErrorNote } from "../../components/notes.tsx";
import { SchemaForm } from "../../components/schema-form.tsx";
import { useClient } from "../../connection.tsx";
import { PutManifestMutation, withCombo, type Extension, type Manifest } from "../../api/composition.ts";
import { useAction } from "../../api/use-action.ts";
import { ToolsQuery } from "../../api/tools.ts";
import { useQuery } from "../../api/use-query.ts";

/**
 * Attaches an extension to a tool in a manifest: its settings form is drawn from the
 * extension's configSchema; the manifest is saved as a new version (with
 * `expectedVersion`), and the server binds the combo before it stores anything.
 */
export function AttachForm({
  extension: e,
  manifests,
  onAttached,
}: {
  extension: Extension;
  manifests: readonly Manifest[];
  onAttached(): void;
}) {
  const client = useClient();
  const tools = useQuery(ToolsQuery, {});
  const [tool, setTool] = useState("");
  const [target, setTarget] = useState(() => manifests.find((m) => m.active)?.name ?? manifests[0]?.name ?? "");
  const [config, setConfig] = useState<unknown>({});
  const { busy, error, run } = useAction();
  const [done, setDone] = useState<string | null>(null);
  const manifest = manifests.find((m) => m.name === target);

  const attach = (settings: unknown) => {
    if (!manifest || !tool) return;
    setDone(null);
    return run(async () => {
      const item = e.configSchema ? { name: e.name, config: (settings ?? {}) as Record<string, unknown> } : e.name;
      const document = withCombo(manifest.document, tool, item);
      const saved = await client.request(PutManifestMutation, {
        input: { name: manifest.name, description: manifest.description, document },
        expectedVersion: manifest.version,
      });
      setDone(
        `Saved ${saved.putManifest.name} version ${saved.putManifest.version}${saved.putManifest.active ? "" : " (not active: activate it under Manifests)"}.`,
      );
      onAttached();
    });
  };

  return (
    <section className="panel" aria-label="Attach">
      <header>
        <h2>Attach to a tool</h2>
      </header>
      <div className="body">
        {!manifests.length ? (
          <span className="faint">There is no manifest to attach it in yet.</span>
        ) : (
          <>
            <div className="filters">
              <label className="field-inline">
                <span>Tool</span>
                <select value={tool} onChange={(ev) => setTool(ev.target.value)} aria-label="Tool to attach to">
                  <option value="">choose…</option>
                  {(tools.data?.tools ?? []).map((t) => (
                    <option key={t.name}>{t.name}</option>
                  ))}
                </select>
              </label>
              <label className="field-inline">
                <span>Manifest</span>
                <select value={target} onChange={(ev) => setTarget(ev.target.value)} aria-label="Manifest">
                  {manifests.map((m) => (
                    <option key={m.name} value={m.name}>
                      {m.name} v{m.version}
                      {m.active ? " (active)" : ""}
                    </option>
                  ))}
                </select>
              </label>
            </div>
            <h4>Settings</h4>
            {e.configSchema ? (
              <>
                <p className="muted">
                  A string “!ENV NAME” is read from the server's environment when the combo binds, and is only ever
                  shown sealed.
                </p>
                <SchemaForm
                  id={`config-${e.name}`}
                  schema={e.configSchema}
                  value={config}
                  onChange={setConfig}
                  onSubmit={attach}
                  submitLabel={busy ? "Saving…" : "Attach"}
                  disabled={busy || !tool}
                />
              </>
            ) : (
              <>
                <span className="faint">This extension takes no settings.</span>
                <div>
                  <button className="primary" disabled={busy || !tool} onClick={() => void attach(null)}>
                    {busy ? "Saving…" : "Attach"}
                  </button>
                </div>
              </>
            )}
          </>
        )}
        <ErrorNote error={error} />
        {done && <div className="note info">{done}</div>}
      </div>
    </section>
  );
}
