import { useState } from "react";
import { JsonEditor } from "../../components/json-editor.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import { useClient } from "../../connection.tsx";
import { decisionsOf, PutConnectorMutation, type Connector, type ToolDecision } from "../../api/connectors.ts";
import { codeOf, issuesOf, messageOf, type Issue } from "../../api/errors.ts";
import { useAction } from "../../api/use-action.ts";
import { IssueList, issuesAt } from "./issue-list.tsx";

/** The built-in kinds, offered as suggestions; a plugin's kind is typed by its name. */
const KINDS = ["mcp", "openapi"];

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
  const client = useClient();
  const [name, setName] = useState(connector?.name ?? "");
  const [kind, setKind] = useState(connector?.kind ?? "mcp");
  const [description, setDescription] = useState(connector?.description ?? "");
  const [settings, setSettings] = useState<unknown>(connector?.settings ?? {});
  const [tools, setTools] = useState<unknown>(connector ? decisionsOf(connector) : {});
  const [issues, setIssues] = useState<Issue[]>([]);
  const { busy, error, run } = useAction();
  const ready = !!name.trim() && !!kind.trim() && isObject(settings) && isObject(tools);

  const save = () =>
    run(
      async () => {
        setIssues([]);
        const input = {
          name: name.trim(),
          kind: kind.trim(),
          description: description.trim(),
          settings: settings as Record<string, unknown>,
          tools: tools as Record<string, ToolDecision>,
        };
        await client.request(PutConnectorMutation, { input, expectedVersion: connector?.version ?? null });
        onSaved(input.name);
      },
      (e) => {
        setIssues(issuesOf(e));
        if (codeOf(e) === "CONFLICT" && connector)
          return `${messageOf(e)} (someone saved it since this editor opened version ${connector.version}: reopen it from the list)`;
        return messageOf(e);
      },
    );

  const fieldIssues = (path: string) => <IssueList issues={issuesAt(issues, path)} />;
  return (
    <section className="panel" aria-label="Connector editor">
      <header>
        <h2>{connector ? `Edit ${connector.name}` : "Add connector"}</h2>
        {connector && <span className="muted">editing version {connector.version}</span>}
      </header>
      <div className="body stack">
        <label className="field-inline">
          <span>Name</span>
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            disabled={!!connector}
            aria-label="Connector name"
            placeholder="github"
          />
          {fieldIssues("/name")}
        </label>
        <label className="field-inline">
          <span>Kind</span>
          <input
            value={kind}
            onChange={(e) => setKind(e.target.value)}
            disabled={!!connector}
            aria-label="Connector kind"
            list="connector-kinds"
          />
          <datalist id="connector-kinds">
            {KINDS.map((k) => (
              <option key={k} value={k} />
            ))}
          </datalist>
          {fieldIssues("/kind")}
        </label>
        <label className="field-inline">
          <span>Description</span>
          <input
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            aria-label="Connector description"
          />
          {fieldIssues("/description")}
        </label>
        <div className="field-inline">
          <span>Settings (JSON)</span>
          <p className="muted small">
            The kind's settings. A secret (a token, a header, an environment value) must be an “!ENV NAME” marker: the
            server reads it from its environment when it connects and never stores or shows its value; a literal secret
            is refused.
          </p>
          <JsonEditor id="connector-settings" value={settings} onChange={setSettings} rows={8} />
          {fieldIssues("/settings")}
        </div>
        <div className="field-inline">
          <span>Tool decisions (JSON)</span>
          <p className="muted small">
            By upstream tool name: {"{ tier, retry, timeoutSeconds, enabled }"}. Tiers can also be assigned one by one
            from the connector's tools.
          </p>
          <JsonEditor id="connector-tools" value={tools} onChange={setTools} rows={4} />
          {fieldIssues("/tools")}
        </div>
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

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === "object" && !Array.isArray(v);
}
