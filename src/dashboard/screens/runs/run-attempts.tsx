import { Panel } from "../../components/panel.tsx";
import { Duration, formatDuration, Time } from "../../components/time.tsx";
import type { ToolRun } from "../../api/runs.ts";

/** Every attempt of a run, with the wait the retry policy took before the next one. */
export function RunAttempts({ run }: { run: ToolRun }) {
  return (
    <Panel
      title="Attempts"
      heading={<h2>Attempts and waits</h2>}
      aside={<span className="muted">{run.attempts.length}</span>}
      flush
    >
      {run.attempts.length === 0 ? (
        <div className="empty">{noAttempt(run)}</div>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>#</th>
              <th>Started</th>
              <th>Took</th>
              <th>Outcome</th>
              <th>Then waited</th>
            </tr>
          </thead>
          <tbody>
            {run.attempts.map((a) => (
              <tr key={a.number}>
                <td>{a.number}</td>
                <td>
                  <Time at={a.startedAt} />
                </td>
                <td>
                  <Duration from={a.startedAt} to={a.finishedAt} />
                </td>
                <td>
                  {a.errorKind ? (
                    <span className="bad-text">{`${a.errorKind}: ${a.errorMessage ?? ""}`}</span>
                  ) : a.finishedAt ? (
                    <span className="ok-text">ok</span>
                  ) : (
                    <span className="faint">running</span>
                  )}
                </td>
                <td>{a.waitSeconds ? formatDuration(a.waitSeconds * 1000) : <span className="faint">—</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}

/** Why a run shows no attempt. */
function noAttempt(run: ToolRun): string {
  if (run.status === "QUEUED") return "Queued: no attempt yet.";
  if (run.errorKind === "INTERRUPTED") return "No attempt recorded: its instance stopped while it ran.";
  return `No attempt ran${run.errorKind ? ` (refused: ${run.errorKind})` : ""}.`;
}
