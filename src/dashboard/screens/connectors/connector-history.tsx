import { Panel } from "../../components/panel.tsx";
import type { Connector, ConnectorResult } from "../../api/connectors.ts";
import { ChangeView } from "./connector-change.tsx";

/** What a Refresh found: the listing change, or that the upstream lists the same tools. */
export function RefreshResult({ refreshed }: { refreshed: ConnectorResult }) {
  return (
    <div className="note" data-testid="refresh-result">
      {refreshed.change ? (
        <ChangeView change={refreshed.change} />
      ) : (
        `No change: the upstream lists the same tools (listing v${refreshed.connector.listingVersion}).`
      )}
    </div>
  );
}

/** The tools the connector's upstream lists but the surface refused, with the reasons. */
export function RefusedTools({ connector: c }: { connector: Connector }) {
  return (
    <Panel title="Refused tools" aside={<span className="muted">not on the surface</span>}>
      <ul className="issues" data-testid="refused-tools">
        {c.refused.map((r) => (
          <li key={r.name}>
            <span className="mono">{r.name}</span>: <span className="muted">{r.reason}</span>
          </li>
        ))}
      </ul>
    </Panel>
  );
}

/** The connector's recent listing changes, newest as the server orders them. */
export function RecentChanges({ connector: c }: { connector: Connector }) {
  return (
    <Panel title="Recent changes">
      {c.changes.length ? (
        <div className="stack" data-testid="connector-changes">
          {c.changes.map((ch) => (
            <ChangeView key={ch.listingVersion} change={ch} />
          ))}
        </div>
      ) : (
        <div className="empty">No listing change recorded.</div>
      )}
    </Panel>
  );
}
