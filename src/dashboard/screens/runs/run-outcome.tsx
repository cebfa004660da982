import { StatusBadge } from "../../components/badges.tsx";
import { JsonView } from "../../components/json-view.tsx";
import { ShortId } from "../../components/time.tsx";
import { isOpen, type ToolRun } from "../../api/runs.ts";
import { linkTo } from "../../route.ts";

/** What a run produced: its text blocks and structured data, or its error. */
export function RunOutput({
  run,
}: {
  run: Pick<ToolRun, "status" | "content" | "data" | "errorKind" | "errorMessage" | "details">;
}) {
  const issues = (run.details as { issues?: { path: string; message: string }[] } | null)?.issues;
  return (
    <div className="stack">
      {run.errorKind && (
        <div className="note bad">
          <strong>{run.errorKind}</strong> {run.errorMessage}
          {issues && (
            <ul className="issues">
              {issues.map((i, n) => (
                <li key={n}>
                  <code>{i.path || "/"}</code> {i.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {run.data !== null && run.data !== undefined ? (
        <JsonView value={run.data} />
      ) : (
        run.content.map((b, i) =>
          b.text ? (
            <pre key={i} className="json">
              {b.text}
            </pre>
          ) : (
            <JsonView key={i} value={b.data} />
          ),
        )
      )}
      {!run.errorKind && run.data == null && !run.content.length && (
        <span className="faint">{isOpen(run) ? "No output yet." : "No output."}</span>
      )}
    </div>
  );
}

/** The run a form just made: status, id and output, with a link to its detail. */
export function RunOutcome({ run }: { run: ToolRun }) {
  return (
    <div className="outcome" data-testid="run-outcome" data-status={run.status}>
      <div className="spread">
        <span className="row">
          <StatusBadge status={run.status} />
          <a href={linkTo("runs", run.id)}>
            run <ShortId id={run.id} />
          </a>
        </span>
        <span className="muted">
          {run.attempts.length} attempt{run.attempts.length === 1 ? "" : "s"}
        </span>
      </div>
      <RunOutput run={run} />
      {run.status === "PARKED" && (
        <div className="note info">
          Waiting for an answer: <a href={linkTo("interactions")}>answer it under Interactions</a>.
        </div>
      )}
    </div>
  );
}
