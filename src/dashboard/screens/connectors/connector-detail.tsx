import { useState } from "react";
import { JsonView } from "../../components/json-view.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import { Panel } from "../../components/panel.tsx";
import { Time } from "../../components/time.tsx";
import { useClient } from "../../connection.tsx";
import {
  DeleteConnectorMutation,
  RefreshConnectorMutation,
  type Connector,
  type ConnectorResult,
} from "../../api/connectors.ts";
import { useAction } from "../../api/use-action.ts";
import { ChangeView } from "./connector-change.tsx";
import { HealthBadge } from "./connector-health.tsx";
import { ConnectorTools } from "./connector-tools.tsx";

/**
 * One connector: its facts and settings, its tools with their tiers, Refresh with its diff, the recent changes, and
 * delete.
 */
export function ConnectorDetail({
  connector: c,
  onChanged,
  onEdit,
  onDeleted,
}: {
  connector: Connector;
  onChanged(): void;
  onEdit(): void;
  onDeleted(): void;
}) {
  const client = useClient();
  const refresh = useAction();
  const remove = useAction();
  const [refreshed, setRefreshed] = useState<ConnectorResult | null>(null);
  const [confirming, setConfirming] = useState(false);

  const doRefresh = () =>
    refresh.run(async () => {
      setRefreshed(null);
      const r = await client.request(RefreshConnectorMutation, { name: c.name });
      setRefreshed(r.refreshConnector);
      onChanged();
    });
  const doDelete = () =>
    remove.run(async () => {
      await client.request(DeleteConnectorMutation, { name: c.name, expectedVersion: c.version });
      onDeleted();
    });

  return (
    <div className="stack" data-testid="connector-detail" data-connector={c.name}>
      <Panel
        title={`Connector ${c.name}`}
        heading={
          <div className="row">
            <h2 className="mono">{c.name}</h2>
            <HealthBadge health={c.health} />
          </div>
        }
        aside={
          <span className="row">
            <button className="primary small" onClick={() => void doRefresh()} disabled={refresh.busy}>
              {refresh.busy ? "Refreshing…" : "Refresh"}
            </button>
            <button className="small" onClick={onEdit}>
              Edit
            </button>
            <button className="small" onClick={() => setConfirming(true)} disabled={confirming}>
              Delete
            </button>
          </span>
        }
      >
        <div className="stack">
          {c.description && <p>{c.description}</p>}
          {confirming && (
            <div className="note warn" role="alertdialog" aria-label="Confirm delete">
              Delete {c.name}? Its {c.tools.length} tool{c.tools.length === 1 ? "" : "s"} leave the surface, and presets
              over them stop working.
              <div className="row">
                <button className="primary small" onClick={() => void doDelete()} disabled={remove.busy}>
                  {remove.busy ? "Deleting…" : `Delete ${c.name}`}
                </button>
                <button className="small" onClick={() => setConfirming(false)}>
                  Keep it
                </button>
              </div>
            </div>
          )}
          <ErrorNote error={remove.error} />
          <ErrorNote error={refresh.error} />
          {refreshed && (
            <div className="note" data-testid="refresh-result">
              {refreshed.change ? (
                <ChangeView change={refreshed.change} />
              ) : (
                `No change: the upstream lists the same tools (listing v${refreshed.connector.listingVersion}).`
              )}
            </div>
          )}
          <dl className="facts wide">
            <dt>Kind</dt>
            <dd className="mono">{c.kind}</dd>
            <dt>Version</dt>
            <dd>v{c.version}</dd>
            <dt>Listing</dt>
            <dd>v{c.listingVersion}</dd>
            <dt>Refreshed</dt>
            <dd>
              <Time at={c.refreshedAt} />
              {c.refreshError && <span className="bad-text"> failed: {c.refreshError}</span>}
            </dd>
            <dt>Health</dt>
            <dd>
              {c.health.state.toLowerCase()} since <Time at={c.health.since} />
              {c.health.failures > 0 && ` (${c.health.failures} failures)`}
            </dd>
            <dt>Last error</dt>
            <dd className={c.health.lastError ? "bad-text" : "faint"}>{c.health.lastError ?? "—"}</dd>
          </dl>
          <h4>Settings</h4>
          <JsonView value={c.settings} />
        </div>
      </Panel>
      <Panel title="Tools" aside={<span className="muted">{c.tools.length}</span>} flush>
        <ConnectorTools connector={c} onChanged={onChanged} />
      </Panel>
      {c.refused.length > 0 && (
        <Panel title="Refused tools" aside={<span className="muted">not on the surface</span>}>
          <ul className="issues" data-testid="refused-tools">
            {c.refused.map((r) => (
              <li key={r.name}>
                <span className="mono">{r.name}</span>: <span className="muted">{r.reason}</span>
              </li>
            ))}
          </ul>
        </Panel>
      )}
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
    </div>
  );
}
