import { useState } from "react";
import { Badge } from "../../components/badges.tsx";
import { JsonView } from "../../components/json-view.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import { ExtensionsQuery, ManifestsQuery, type Extension, type Manifest } from "../../api/composition.ts";
import { useQuery } from "../../api/use-query.ts";
import { AttachForm } from "./attach-form.tsx";
import { Clamped, Markdown } from "../../components/markdown.tsx";

/** Where an extension is attached: each manifest's tool and the settings it was given. */
function usesOf(ext: string, manifests: readonly Manifest[]): { manifest: string; tool: string; config: unknown }[] {
  const out: { manifest: string; tool: string; config: unknown }[] = [];
  for (const m of manifests) {
    for (const [tool, value] of Object.entries((m.document.extensions as Record<string, unknown> | undefined) ?? {})) {
      const combos = Array.isArray(value) && value.every(Array.isArray) ? (value as unknown[][]) : [value as unknown[]];
      for (const item of combos.flat()) {
        const name = typeof item === "string" ? item : (item as { name?: string })?.name;
        if (name === ext)
          out.push({
            manifest: m.name,
            tool,
            config: typeof item === "string" ? null : ((item as { config?: unknown }).config ?? null),
          });
      }
    }
  }
  return out;
}

/**
 * The extension catalog: every loaded extension, its settings schema, where it is attached, and a form to attach it.
 */
export function ExtensionsPanel() {
  const extensions = useQuery(ExtensionsQuery, {});
  const manifests = useQuery(ManifestsQuery, {});
  const [selected, setSelected] = useState<string | null>(null);
  const list = extensions.data?.extensions ?? [];
  const current = list.find((e) => e.name === selected) ?? list[0];
  return (
    <div className="split">
      <section className="panel" aria-label="Extensions">
        <header>
          <h2>Catalog</h2>
          <span className="muted">{list.length} loaded</span>
        </header>
        <ErrorNote error={extensions.error} />
        <div className="body flush">
          <ul className="item-list">
            {list.map((e) => (
              <li key={e.name}>
                <button
                  className={`item${e.name === current?.name ? " active" : ""}`}
                  onClick={() => setSelected(e.name)}
                  data-extension={e.name}
                >
                  <span className="spread">
                    <strong className="mono">{e.name}</strong>
                    <span className="row">
                      <Badge>{e.kind.toLowerCase()}</Badge>
                      {e.pauses && <Badge tone="warn">pauses</Badge>}
                    </span>
                  </span>
                  <Clamped source={e.description} />
                </button>
              </li>
            ))}
          </ul>
        </div>
      </section>
      {current && (
        <ExtensionView
          key={current.name}
          extension={current}
          manifests={manifests.data?.manifests ?? []}
          onAttached={manifests.reload}
        />
      )}
    </div>
  );
}

function ExtensionView({
  extension: e,
  manifests,
  onAttached,
}: {
  extension: Extension;
  manifests: readonly Manifest[];
  onAttached(): void;
}) {
  const uses = usesOf(e.name, manifests);
  return (
    <div className="stack">
      <section className="panel" aria-label={`Extension ${e.name}`}>
        <header>
          <h2 className="mono">{e.name}</h2>
          <span className="muted mono">{e.module}</span>
        </header>
        <div className="body">
          <Markdown source={e.description} />
          <h4>Attached</h4>
          {uses.length ? (
            <table className="table">
              <thead>
                <tr>
                  <th>Manifest</th>
                  <th>Tool</th>
                  <th>Settings</th>
                </tr>
              </thead>
              <tbody>
                {uses.map((u, i) => (
                  <tr key={i}>
                    <td className="mono">{u.manifest}</td>
                    <td className="mono">{u.tool}</td>
                    <td>
                      <JsonView value={u.config} empty="none" />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <span className="faint">Not attached in any manifest.</span>
          )}
        </div>
      </section>
      <AttachForm extension={e} manifests={manifests} onAttached={onAttached} />
    </div>
  );
}
