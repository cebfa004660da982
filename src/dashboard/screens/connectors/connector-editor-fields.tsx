import type { ReactNode } from "react";
import { JsonEditor } from "../../components/json-editor.tsx";
import type { ConnectorEditorState } from "./use-connector-editor.ts";

/** The built-in kinds, offered as suggestions; a plugin's kind is typed by its name. */
const KINDS = ["mcp", "openapi"];

type FieldIssues = (path: string) => ReactNode;

/** The connector editor's name, kind and description; name and kind are locked when editing a stored connector. */
export function ConnectorTextFields({
  editor,
  locked,
  fieldIssues,
}: {
  editor: ConnectorEditorState;
  locked: boolean;
  fieldIssues: FieldIssues;
}) {
  return (
    <>
      <label className="field-inline">
        <span>Name</span>
        <input
          value={editor.name}
          onChange={(e) => editor.setName(e.target.value)}
          disabled={locked}
          aria-label="Connector name"
          placeholder="github"
        />
        {fieldIssues("/name")}
      </label>
      <label className="field-inline">
        <span>Kind</span>
        <input
          value={editor.kind}
          onChange={(e) => editor.setKind(e.target.value)}
          disabled={locked}
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
          value={editor.description}
          onChange={(e) => editor.setDescription(e.target.value)}
          aria-label="Connector description"
        />
        {fieldIssues("/description")}
      </label>
    </>
  );
}

/** The connector editor's two JSON fields: the kind's settings and the tool decisions, each with its issues. */
export function ConnectorJsonFields({
  editor,
  fieldIssues,
}: {
  editor: ConnectorEditorState;
  fieldIssues: FieldIssues;
}) {
  return (
    <>
      <div className="field-inline">
        <span>Settings (JSON)</span>
        <p className="muted small">
          The kind's settings. A secret (a token, a header, an environment value) must be an “!ENV NAME” marker: the
          server reads it from its environment when it connects and never stores or shows its value; a literal secret is
          refused.
        </p>
        <JsonEditor id="connector-settings" value={editor.settings} onChange={editor.setSettings} rows={8} />
        {fieldIssues("/settings")}
      </div>
      <div className="field-inline">
        <span>Tool decisions (JSON)</span>
        <p className="muted small">
          By upstream tool name: {"{ tier, retry, timeoutSeconds, enabled }"}. Tiers can also be assigned one by one
          from the connector's tools.
        </p>
        <JsonEditor id="connector-tools" value={editor.tools} onChange={editor.setTools} rows={4} />
        {fieldIssues("/tools")}
      </div>
    </>
  );
}
