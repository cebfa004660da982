import { TierBadge } from "../../components/badges.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import { useClient } from "../../connection.tsx";
import { PutConnectorMutation, withTier, type Connector } from "../../api/connectors.ts";
import { codeOf, messageOf } from "../../api/errors.ts";
import { useAction } from "../../api/use-action.ts";
import type { Tier } from "../../api/viewer.ts";
import { Clamped } from "../../components/markdown.tsx";

const TIERS: Tier[] = ["READ", "WRITE", "FENCED", "SECRET"];

/**
 * A connector's tools: the surface name, what the upstream proposes and what the ADMIN
 * assigned. Choosing a tier puts the connector with that decision and the version shown
 * (a save in between is refused as CONFLICT, not overwritten).
 */
export function ConnectorTools({ connector, onChanged }: { connector: Connector; onChanged(): void }) {
  const client = useClient();
  const { busy, error, run } = useAction();
  const assign = (upstreamName: string, tier: Tier | null) =>
    run(
      async () => {
        await client.request(PutConnectorMutation, {
          input: withTier(connector, upstreamName, tier),
          expectedVersion: connector.version,
        });
        onChanged();
      },
      (e) =>
        codeOf(e) === "CONFLICT"
          ? `${messageOf(e)} (the connector changed since it was shown: it is reloaded, choose again)`
          : messageOf(e),
    );
  if (!connector.tools.length) return <div className="empty">The upstream lists no tool.</div>;
  return (
    <>
      <ErrorNote error={error} />
      <table className="table" data-testid="connector-tools">
        <thead>
          <tr>
            <th>Tool</th>
            <th>Proposed tier</th>
            <th>Assigned tier</th>
            <th>Idempotent</th>
            <th>Enabled</th>
          </tr>
        </thead>
        <tbody>
          {connector.tools.map((t) => (
            <tr key={t.name} data-tool={t.name} data-tier={t.tier} data-assigned={t.tierAssigned ? "yes" : "no"}>
              <td>
                <strong className="mono">{t.name}</strong>
                {t.upstreamName !== t.name && <span className="faint small"> ({t.upstreamName})</span>}
                <Clamped source={`${t.title ? `${t.title}: ` : ""}${t.description}`} />
              </td>
              <td data-testid="proposed-tier">
                <TierBadge tier={t.proposedTier} />
              </td>
              <td>
                <select
                  className="tier-select"
                  aria-label={`tier of ${t.name}`}
                  value={t.tierAssigned ? t.tier : ""}
                  disabled={busy}
                  onChange={(e) => void assign(t.upstreamName, (e.target.value || null) as Tier | null)}
                >
                  <option value="">as proposed ({t.tier.toLowerCase()})</option>
                  {TIERS.map((tier) => (
                    <option key={tier} value={tier}>
                      {tier.toLowerCase()}
                    </option>
                  ))}
                </select>
              </td>
              <td title="The ADMIN's claim that re-sending is safe (retries need it); upstream hints claim nothing.">
                {t.idempotent ? "claimed" : "no"}
              </td>
              <td>{t.enabled ? "yes" : <span className="faint">off the surface</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
