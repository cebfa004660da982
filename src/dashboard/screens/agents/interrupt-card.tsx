import { useState } from "react";
import { interruptActions, type Decision, type Terminal } from "../../api/agents.ts";
import { InterruptAction, type Choice } from "./interrupt-action.tsx";

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
        <InterruptAction
          key={a.callId}
          action={a}
          open={active && !sent}
          choice={choices[i]}
          onChoice={(d) => setChoices(set(choices, i, d))}
          onEdit={(v) => setEdits(set(edits, i, v))}
          message={messages[i]}
          onMessage={(m) => setMessages(set(messages, i, m))}
        />
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
