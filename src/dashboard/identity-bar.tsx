import { useState } from "react";
import { Badge } from "./components/badges.tsx";
import { isAdmin } from "./api/viewer.ts";
import { useConnection } from "./connection.tsx";

/**
 * Who the server sees (role, key name) and the API key entry. The key is kept in this
 * tab's sessionStorage and sent only to this server.
 */
export function IdentityBar() {
  const { viewer, viewerError, apiKey, setApiKey } = useConnection();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState("");

  const who = viewerError ? (
    <Badge tone="bad" title={viewerError}>
      key refused
    </Badge>
  ) : viewer ? (
    <span className="row" data-testid="viewer">
      <span className="muted">{viewer.keyName ? `key ${viewer.keyName}` : "anonymous"}</span>
      <Badge tone={isAdmin(viewer) ? "accent" : "idle"} title="your role">
        <span data-testid="viewer-role">{viewer.role ?? "no access"}</span>
      </Badge>
    </span>
  ) : (
    <span className="faint">connecting…</span>
  );

  if (editing) {
    return (
      <div className="identity">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setApiKey(draft.trim() || null);
            setDraft("");
            setEditing(false);
          }}
        >
          <input
            type="password"
            autoFocus
            placeholder="API key (kept for this tab only)"
            aria-label="API key"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            autoComplete="off"
          />
          <button type="submit" className="primary">
            Use key
          </button>
          <button type="button" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      </div>
    );
  }
  return (
    <div className="identity">
      {who}
      <button onClick={() => setEditing(true)}>{apiKey ? "Change key" : "Enter API key"}</button>
      {apiKey && <button onClick={() => setApiKey(null)}>Forget key</button>}
    </div>
  );
}
