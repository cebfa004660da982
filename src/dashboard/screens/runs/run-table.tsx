import { StatusBadge } from "../../components/badges.tsx";
import { Duration, ShortId, Time } from "../../components/time.tsx";
import type { RunRow } from "../../api/runs.ts";
import { linkTo } from "../../route.ts";

/**
 * Runs as rows: status, tool, id (its last 8 characters), door, start and duration. The whole row opens the run's
 * detail: its id is a real link stretched over the row (`.row-link`), so a click anywhere and Enter on the focused
 * link open it; the tool's own link stays above it.
 */
export function RunTable({
  runs,
  compact = false,
  empty = "No runs yet.",
}: {
  runs: readonly RunRow[];
  compact?: boolean;
  empty?: string;
}) {
  if (!runs.length) return <div className="empty">{empty}</div>;
  return (
    <table className="table" data-testid="run-table">
      <thead>
        <tr>
          <th>Status</th>
          {!compact && <th>Tool</th>}
          <th>Run</th>
          {!compact && <th>Door</th>}
          <th>Started</th>
          <th>Took</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => (
          <tr key={r.id} className="linked" data-run={r.id} data-tool={r.tool} data-status={r.status}>
            <td>
              <span className="row">
                <StatusBadge status={r.status} />
                {r.errorKind && <span className="faint small">{r.errorKind}</span>}
              </span>
            </td>
            {!compact && (
              <td>
                <a href={linkTo("tools", r.tool)} className="mono">
                  {r.tool}
                </a>
              </td>
            )}
            <td>
              <a href={linkTo("runs", r.id)} className="row-link" aria-label={`run ${r.id} of ${r.tool}, ${r.status}`}>
                <ShortId id={r.id} />
              </a>
              {r.parentRunId && (
                <span className="faint" title={`started by run ${r.parentRunId}`}>
                  {" "}
                  ↳
                </span>
              )}
            </td>
            {!compact && <td className="muted">{r.door}</td>}
            <td>
              <Time at={r.startedAt} />
            </td>
            <td>
              {r.status === "PARKED" ? (
                <span className="faint">waiting</span>
              ) : (
                <Duration from={r.startedAt} to={r.finishedAt} open={r.status === "QUEUED" ? "waiting" : undefined} />
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
