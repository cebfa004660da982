import { useState } from "react";
import { Badge } from "./components/badges.tsx";
import { isAdmin, type Viewer } from "./api/viewer.ts";
import { useConnection } from "./connection.tsx";
import { issuerHost } from "./sign-in/identity.ts";

/**
 * Who the server sees (role, key name) and the API key entry, beside a "Sign in with <issuer>" button for each
 * issuer identity.json lists. The key and the tokens are kept in this tab's sessionStorage and sent only to this
 * server.
 */
export function IdentityBar() {
  const { viewer, viewerError, apiKey, setApiKey, signIn } = useConnection();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState("");

  const signedIn = signIn.tokens;
  const who = viewerError ? (
    <Badge tone="bad" title={viewerError}>
      {signedIn ? "sign-in refused" : "key refused"}
    </Badge>
  ) : viewer ? (
    <span className="row" data-testid="viewer">
      <span className="muted">{describe(viewer)}</span>
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
  const notice = signIn.notice && (
    <Badge tone="bad" title={signIn.notice}>
      <span data-testid="sign-in-notice">{signIn.notice}</span>
    </Badge>
  );
  if (signedIn) {
    return (
      <div className="identity">
        {who}
        <button onClick={() => setEditing(true)}>Use a key</button>
        <button onClick={() => signIn.signOut()}>Sign out</button>
      </div>
    );
  }
  return (
    <div className="identity">
      {notice}
      {signIn.finishing ? <span className="faint">signing in…</span> : who}
      <button onClick={() => setEditing(true)}>{apiKey ? "Change key" : "Enter API key"}</button>
      {apiKey && <button onClick={() => setApiKey(null)}>Forget key</button>}
      {signIn.issuers.map((i) => (
        <button key={i.issuer} className="primary" onClick={() => signIn.signIn(i)}>
          Sign in with {issuerHost(i.issuer)}
        </button>
      ))}
    </div>
  );
}

/** Who the viewer is in words: a key by its name, a signed-in caller by its subject and issuer. */
function describe(viewer: Viewer): string {
  if (viewer.subject) return `signed in as ${viewer.subject}${viewer.issuer ? ` (${issuerHost(viewer.issuer)})` : ""}`;
  return viewer.keyName ? `key ${viewer.keyName}` : "anonymous";
}
