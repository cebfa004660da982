import { useState } from "react";
import { JsonView } from "../../components/json-view.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import { Panel } from "../../components/panel.tsx";
import { useClient } from "../../connection.tsx";
import {
  DeleteConnectorMutation,
  RefreshConnectorMutation,
  type Connector,
  type ConnectorResult,
} from "../../api/connectors.ts";
import { useAction } from "../../api/use-action.ts";
import { DeleteConfirm } from "./connector-delete-confirm.tsx";
import { ConnectorFacts } from "./connector-facts.tsx";
import { HealthBadge } from "./connector-health.tsx";
import { RecentChanges, RefreshResult, RefusedTools } from "./connector-history.tsx";
import { ConnectorTools } from "./connector-tools.tsx";
import { Markdown } from "../../components/markdown.tsx";

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
          {c.description && <Markdown source={c.description} />}
          {confirming && (
            <DeleteConfirm
              connector={c}
              remove={remove}
              onDelete={() => void doDelete()}
              onKeep={() => setConfirming(false)}
            />
          )}
          <ErrorNote error={remove.error} />
          <ErrorNote error={refresh.error} />
          {refreshed && <RefreshResult refreshed={refreshed} />}
          <ConnectorFacts connector={c} />
          <h4>Settings</h4>
          <JsonView value={c.settings} />
        </div>
      </Panel>
      <Panel title="Tools" aside={<span className="muted">{c.tools.length}</span>} flush>
        <ConnectorTools connector={c} onChanged={onChanged} />
      </Panel>
      {c.refused.length > 0 && <RefusedTools connector={c} />}
      <RecentChanges connector={c} />
    </div>
  );
}
