import { ErrorNote } from "../../components/notes.tsx";
import type { Connector } from "../../api/connectors.ts";
import { ConnectorJsonFields, ConnectorTextFields } from "./connector-editor-fields.tsx";
import { IssueList, issuesAt } from "../../components/issue-list.tsx";
import { useConnectorEditor } from "./use-connector-editor.ts";

/**
 * Adds a connector, or replaces one with `expectedVersion` (the version this editor
 * opened: a save in between is refused as CONFLICT). A refusal shows each issue at its
 * path, and the form keeps everything typed.
 */
export function ConnectorEditor({
  connector,
  onSaved,
  onCancel,
}: {
  connector: Connector | null;
  onSaved(name: string): void;
  onCancel(): void;
}) {
  const editor = useConnectorEditor(connector, onSaved);
  const { issues, busy, error, ready, save } = editor;
  const fieldIssues = (path: string) => <IssueList issues={issuesAt(issues, path)} />;
  return (
    <section className="panel" aria-label="Connector editor">
      <header>
        <h2>{connector ? `Edit ${connector.name}` : "Add connector"}</h2>
        {connector && <span className="muted">editing version {connector.version}</span>}
      </header>
      <div className="body stack">
        <ConnectorTextFields editor={editor} locked={!!connector} fieldIssues={fieldIssues} />
        <ConnectorJsonFields editor={editor} fieldIssues={fieldIssues} />
        <IssueList
          issues={issues.filter(
            (i) => !["/name", "/kind", "/description", "/settings", "/tools"].some((p) => issuesAt([i], p).length),
          )}
        />
        <ErrorNote error={error} />
        <div className="row">
          <button className="primary" onClick={() => void save()} disabled={busy || !ready}>
            {busy ? "Connecting…" : connector ? `Save as version ${connector.version + 1}` : "Add connector"}
          </button>
          <button className="link" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </div>
    </section>
  );
}
