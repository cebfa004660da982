import { useState } from "react";
import { ErrorNote } from "../../components/notes.tsx";
import { useClient } from "../../connection.tsx";
import { PutManifestMutation, withCombo, type Extension, type Manifest } from "../../api/composition.ts";
import { useAction } from "../../api/use-action.ts";
import { ToolsQuery } from "../../api/tools.ts";
import { useQuery } from "../../api/use-query.ts";
import { AttachSettings } from "./attach-settings.tsx";
import { AttachTargets } from "./attach-targets.tsx";

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
            <AttachTargets
              tools={tools.data?.tools ?? []}
              tool={tool}
              onTool={setTool}
              manifests={manifests}
              target={target}
              onTarget={setTarget}
            />
            <h4>Settings</h4>
            <AttachSettings
              extension={e}
              config={config}
              onConfig={setConfig}
              busy={busy}
              disabled={busy || !tool}
              onAttach={attach}
            />
          </>
        )}
        <ErrorNote error={error} />
        {done && <div className="note info">{done}</div>}
      </div>
    </section>
  );
}
