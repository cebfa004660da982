import { useState } from "react";
import { interruptActions, type Decision, type Terminal } from "../../api/agents.ts";
import { decidedAsSent, type Decided } from "../../api/decisions.ts";
import { useConnection } from "../../connection.tsx";
import { DecidedView } from "./decided-view.tsx";
import { InterruptAction, type Choice } from "./interrupt-action.tsx";

/**
 * An InterruptFinal: the calls the agent wants to make and waits on. Each gets a decision
 * (approve, edit its arguments, or reject with a message), then the thread resumes. The decision buttons stay in
 * sight (sticky at the bottom of the conversation) however long the arguments are. Once decided, the card says what
 * was decided on each call, by whom and when, with the arguments each ran with: as the resumed run carried it out
 * (`decided`), else as this page sent it.
 */
export function InterruptCard({
  event,
  active,
  later,
  decided,
  onDecide,
}: {
  event: Extract<Terminal, { __typename: "InterruptFinal" }>;
  /** Whether it may be decided now (the latest run, nothing streaming). */
  active: boolean;
  /** Whether a later run of the conversation follows it. */
  later: boolean;
  /** What the run that resumed this interrupt carried out, once it streamed it. */
  decided: Decided | null;
  onDecide(resume: { decisions: Decision[] }, label: string): void;
}) {
  const { viewer } = useConnection();
  const actions = interruptActions(event.payload);
  const [sentAs, setSentAs] = useState<Decided | null>(null);
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
    setSentAs(decidedAsSent(actions, list, new Date().toISOString(), viewer?.keyName ?? null));
    onDecide({ decisions: list }, list.map((d, i) => `${d.type} ${actions[i].tool}`).join(", "));
  };

  const outcome = decided ?? sentAs;
  if (outcome || later || sent) return <DecidedCard reason={event.reason} outcome={outcome} />;

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
          open
          choice={choices[i]}
          onChoice={(d) => setChoices(set(choices, i, d))}
          onEdit={(v) => setEdits(set(edits, i, v))}
          message={messages[i]}
          onMessage={(m) => setMessages(set(messages, i, m))}
        />
      ))}
      <DecideButtons single={actions.length === 1} choice={choices[0]} ready={ready} active={active} decide={decide} />
    </div>
  );
}

/** A decided (or superseded) interrupt: what was decided on each call, else that a later run decided it. */
function DecidedCard({ reason, outcome }: { reason: string | null; outcome: Decided | null }) {
  return (
    <div className="card pause decided" data-testid="interrupt" data-decided={outcome ? "yes" : "no"}>
      <div className="spread">
        <h3>{outcome ? "Decided" : "Approval asked"}</h3>
        <span className="muted">{reason}</span>
      </div>
      {outcome ? (
        <DecidedView decided={outcome} />
      ) : (
        <span className="faint">Decided in a later run (not shown here).</span>
      )}
    </div>
  );
}

/** The decision buttons: one for a single call (named for its choice), else send / approve all / reject all. */
function DecideButtons({
  single,
  choice,
  ready,
  active,
  decide,
}: {
  single: boolean;
  /** The first call's choice, which names the single button. */
  choice: Choice;
  ready: boolean;
  active: boolean;
  decide(all?: Choice): void;
}) {
  return (
    <div className="row decide" data-testid="decide">
      {single ? (
        <button className="primary" disabled={!ready || !active} onClick={() => decide()}>
          {choice === "approve" ? "Approve" : choice === "edit" ? "Run with these arguments" : "Reject"}
        </button>
      ) : (
        <>
          <button className="primary" disabled={!ready || !active} onClick={() => decide()}>
            Send decisions
          </button>
          <button className="ok" disabled={!active} onClick={() => decide("approve")}>
            Approve all
          </button>
          <button className="danger" disabled={!active} onClick={() => decide("reject")}>
            Reject all
          </button>
        </>
      )}
    </div>
  );
}
