import { JsonView } from "../../components/json-view.tsx";
import { Time } from "../../components/time.tsx";
import type { Decided } from "../../api/decisions.ts";

const WORDS = { approve: "Approved", edit: "Approved with edited arguments", reject: "Rejected" } as const;

/** What was decided on each call of an interrupt, by whom and when, and the arguments each call ran with. */
export function DecidedView({ decided }: { decided: Decided }) {
  return (
    <>
      <p className="muted small" data-testid="decided-by">
        Decided{decided.by ? ` by key ${decided.by}` : ""}
        {decided.at && (
          <>
            {" "}
            at <Time at={decided.at} />
          </>
        )}
        .
      </p>
      {decided.actions.map((a) => (
        <div key={a.callId} className="action" data-decision={a.type} data-tool={a.tool}>
          <div className="spread">
            <strong className="mono">{a.tool}</strong>
            <span className={a.type === "reject" ? "bad-text" : "ok-text"} data-testid="decision">
              {WORDS[a.type]}
            </span>
          </div>
          {a.type === "reject" ? (
            <>
              <p data-testid="reject-reason">
                {a.message ? <>Reason: {a.message}</> : <span className="faint">No reason given.</span>}
              </p>
              <details>
                <summary className="faint small">Arguments it asked for (not run)</summary>
                <JsonView value={a.args} />
              </details>
            </>
          ) : (
            <>
              <span className="faint small">{a.type === "edit" ? "Ran with these arguments" : "Ran with"}</span>
              <JsonView value={a.args} />
            </>
          )}
        </div>
      ))}
    </>
  );
}
