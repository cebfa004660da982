import { StatusBadge } from "../../components/badges.tsx";
import { Panel } from "../../components/panel.tsx";
import { Time } from "../../components/time.tsx";
import type { RunLogEntry } from "../../api/runs.ts";

/** A run's event log, in seq order, as the subscription delivered it. */
export function RunEvents({ events }: { events: readonly RunLogEntry[] }) {
  return (
    <Panel title="Events" aside={<span className="muted">{events.length}</span>} flush>
      {events.length === 0 ? (
        <div className="empty">No events yet.</div>
      ) : (
        <table className="table" data-testid="run-events">
          <thead>
            <tr>
              <th>Seq</th>
              <th>Event</th>
              <th>At</th>
              <th>Run status</th>
            </tr>
          </thead>
          <tbody>
            {events.map((e) => (
              <tr key={e.seq} data-event={e.type}>
                <td className="mono">{e.seq}</td>
                <td className="mono">{e.type}</td>
                <td>
                  <Time at={e.at} />
                </td>
                <td>
                  <StatusBadge status={e.run.status} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}
