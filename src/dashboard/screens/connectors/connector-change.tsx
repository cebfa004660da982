import type { ReactNode } from "react";
import { Badge } from "../../components/badges.tsx";
import { Time } from "../../components/time.tsx";
import { isEmptyChange, type ConnectorChange } from "../../api/connectors.ts";

/** What one listing version changed: tools added, removed, changed (with the fields), and the dependants it broke. */
export function ChangeView({ change }: { change: ConnectorChange }) {
  return (
    <div className="stack" data-testid="connector-change" data-listing-version={change.listingVersion}>
      <div className="row">
        <Badge>{change.cause.toLowerCase().replace("_", " ")}</Badge>
        <span className="muted">
          listing v{change.listingVersion} · <Time at={change.at} />
        </span>
      </div>
      {isEmptyChange(change) && <span className="muted">The same tools as before.</span>}
      {change.added.length > 0 && (
        <Names label="Added" testId="change-added">
          {change.added.map((n) => (
            <li key={n} className="mono ok-text">
              + {n}
            </li>
          ))}
        </Names>
      )}
      {change.removed.length > 0 && (
        <Names label="Removed" testId="change-removed">
          {change.removed.map((n) => (
            <li key={n} className="mono bad-text">
              − {n}
            </li>
          ))}
        </Names>
      )}
      {change.changed.length > 0 && (
        <Names label="Changed" testId="change-changed">
          {change.changed.map((c) => (
            <li key={c.name}>
              <span className="mono">{c.name}</span>: <span className="muted">{c.fields.join(", ")}</span>
            </li>
          ))}
        </Names>
      )}
      {change.broken.length > 0 && (
        <Names label="Broken dependants" testId="change-broken">
          {change.broken.map((b) => (
            <li key={`${b.kind}/${b.name}/${b.tool}`} className="bad-text">
              {b.kind.toLowerCase()} <span className="mono">{b.name}</span> (over <span className="mono">{b.tool}</span>
              ): {b.reason}
            </li>
          ))}
        </Names>
      )}
    </div>
  );
}

function Names({ label, testId, children }: { label: string; testId: string; children: ReactNode }) {
  return (
    <div data-testid={testId}>
      <h4>{label}</h4>
      <ul className="change-names">{children}</ul>
    </div>
  );
}
