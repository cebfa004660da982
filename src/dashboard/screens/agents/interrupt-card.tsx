import { useState } from "react";
import { JsonEditor } from "../../components/json-editor.tsx";
import { JsonView } from "../../components/json-view.tsx";
import { interruptActions, type Decision, type Terminal } from "../../api/agents.ts";

type Choice = "approve" | "edit" | "reject";

/**
 * An InterruptFinal: the calls the agent wants to make and waits on. Each gets a decision
 * (approve, edit its arguments, or reject with a message), then the thread resumes.
 */
export function InterruptCard({
  event,
  active,
  onDecide,
}: {
  event: Extract<Terminal, { __typename: "InterruptFinal" }>;
  active: boolean;
  onDecide(resume: { decisions: Decision[] }, label: string): void;
}) {
  const actions = interruptActions(event.payload);
  const [choices, setChoices] = useState<Choice[]>(() => actions.map(() => "approve"));
  const [edits, setEdits] = useState<unknown[]>(() => actions.map((a) => a.args));
  const [messages, setMessages] = useState<string[]>(() => actions.map(() => ""));
  const [sent, setSent] = useState(false);
  const set = <T,>(list: T[], i: number, v: T) => list.map((x, n) => (n === i ? v : x));

  const decisions: (Decision | null)[] = actions.map((_, i) => {
    if (choices[i] === "approve") return { type: "approve" };
    if (choices[i] === "reject")
      return { type: "reject", ...(messages[i].trim() ? { message: messages[i].trim() } : {}) };
    const args = edits[i];
    return args && typeof args === "object" && !Array.isArray(args)
      ? { type: "edit", args: args as Record<string, unknown> }
      : null;
  });
  const ready = decisions.every((d) => d !== null);
  const decide = (all?: Choice) => {
    const list = all
      ? actions.map((): Decision => (all === "approve" ? { type: "approve" } : { type: "reject" }))
      : (decisions as Decision[]);
    setSent(true);
    onDecide({ decisions: list }, list.map((d, i) => `${d.type} ${actions[i].tool}`).join(", "));
  };

  return (
    <div className="card pause" data-testid="interrupt">
      <div className="spread">
        <h3>Approval needed</h3>
        <span className="muted">{event.reason}</span>
      </div>
      {actions.map((a, i) => (
        <div key={a.callId} className="action">
          <div className="spread">
            <strong className="mono">{a.tool}</strong>
            {active && !sent && (
              <div className="segmented" role="radiogroup" aria-label={`decision on ${a.tool}`}>
                {a.allowedDecisions.map((d) => (
                  <button
                    key={d}
                    type="button"
                    role="radio"
                    aria-checked={choices[i] === d}
                    className={choices[i] === d ? "active" : undefined}
                    onClick={() => setChoices(set(choices, i, d))}
                  >
                    {d}
                  </button>
                ))}
              </div>
            )}
          </div>
          {a.description && <p className="muted">{a.description}</p>}
          {choices[i] === "edit" && active && !sent ? (
            <JsonEditor
              id={`edit-${a.callId}`}
              value={a.args}
              onChange={(v) => setEdits(set(edits, i, v))}
              label="Arguments to run it with"
              rows={4}
            />
          ) : (
            <JsonView value={a.args} />
          )}
          {choices[i] === "reject" && active && !sent && (
            <input
              placeholder="Why (the model reads this)"
              aria-label={`reason to reject ${a.tool}`}
              value={messages[i]}
              onChange={(e) => setMessages(set(messages, i, e.target.value))}
            />
          )}
        </div>
      ))}
      {active && !sent ? (
        <div className="row">
          {actions.length === 1 ? (
            <button className="primary" disabled={!ready} onClick={() => decide()}>
              {choices[0] === "approve" ? "Approve" : choices[0] === "edit" ? "Run with these arguments" : "Reject"}
            </button>
          ) : (
            <>
              <button className="primary" disabled={!ready} onClick={() => decide()}>
                Send decisions
              </button>
              <button className="ok" onClick={() => decide("approve")}>
                Approve all
              </button>
              <button className="danger" onClick={() => decide("reject")}>
                Reject all
              </button>
            </>
          )}
        </div>
      ) : (
        <span className="faint">{sent ? "Decided." : "Decided in a later run."}</span>
      )}
    </div>
  );
}
