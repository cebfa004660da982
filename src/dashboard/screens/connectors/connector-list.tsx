import { LiveFlag } from "../../components/live-flag.tsx";
import { Time } from "../../components/time.tsx";
import type { Connector } from "../../api/connectors.ts";
import { linkTo } from "../../route.ts";
import { HealthBadge } from "./connector-health.tsx";

/** Every connector: kind, health, how many tools it serves, its listing version and last refresh. */
export function ConnectorList({
  connectors,
  selected,
  live,
  onAdd,
}: {
  connectors: Connector[] | null;
  selected: string | null;
  live: boolean;
  onAdd(): void;
}) {
  return (
    <section className="panel" aria-label="Connectors">
      <header>
        <h2>Connectors</h2>
        <span className="row">
          <LiveFlag live={live} />
          <button className="primary small" onClick={onAdd}>
            Add connector
          </button>
        </span>
      </header>
      <div className="body flush">
        {!connectors && <div className="empty">Loading…</div>}
        {connectors && !connectors.length && <div className="empty">No connector yet.</div>}
        <ul className="item-list" data-testid="connector-list">
          {(connectors ?? []).map((c) => (
            <li key={c.name}>
              <a
                href={linkTo("connectors", c.name)}
                className={`item${c.name === selected ? " active" : ""}`}
                data-connector={c.name}
              >
                <span className="spread">
                  <strong className="mono">{c.name}</strong>
                  <span className="row">
                    <span className="faint">{c.kind}</span>
                    <HealthBadge health={c.health} />
                  </span>
                </span>
                <span className="muted" data-testid="connector-summary">
                  {c.tools.length} tool{c.tools.length === 1 ? "" : "s"} · listing v{c.listingVersion}
                  {c.refused.length ? ` · ${c.refused.length} refused` : ""}
                </span>
                <span className="faint small">
                  {c.refreshError ? (
                    <span className="bad-text">refresh failed: {c.refreshError}</span>
                  ) : (
                    <>
                      refreshed <Time at={c.refreshedAt} />
                    </>
                  )}
                </span>
              </a>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
