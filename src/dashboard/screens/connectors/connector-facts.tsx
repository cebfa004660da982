import { Time } from "../../components/time.tsx";
import type { Connector } from "../../api/connectors.ts";

/** A connector's facts: kind, version, listing, last refresh and health. */
export function ConnectorFacts({ connector: c }: { connector: Connector }) {
  return (
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
  );
}
