import { useState } from "react";
import { JsonEditor } from "../../components/json-editor.tsx";
import { SchemaForm } from "../../components/schema-form.tsx";
import { Time } from "../../components/time.tsx";
import type { Ask, Terminal } from "../../api/agents.ts";

/**
 * An AsksFinal: the agent's questions to you; the answers resume the thread (each ask is
 * also an interaction, answerable on the interactions screen). One question
 * with an answerFormat gets a form drawn from it; otherwise each question gets a field (text
 * when it has no format or asks for a string, JSON else) and one Send button.
 */
export function AsksCard({
  event,
  active,
  onAnswer,
}: {
  event: Extract<Terminal, { __typename: "AsksFinal" }>;
  active: boolean;
  onAnswer(resume: { answers: Record<string, unknown> }): void;
}) {
  const asks = event.asks as unknown as Ask[];
  const [answers, setAnswers] = useState<Record<string, unknown>>({});
  const [sent, setSent] = useState(false);
  const send = (all: Record<string, unknown>) => {
    setSent(true);
    onAnswer({ answers: all });
  };
  const set = (id: string) => (v: unknown) => setAnswers({ ...answers, [id]: v });
  const open = active && !sent;
  const single = asks.length === 1 && asks[0].answerFormat ? asks[0] : null;
  return (
    <div className="card pause" data-testid="asks">
      <h3>The agent asks</h3>
      {asks.map((a) => (
        <div key={a.id} className="action">
          <p>{a.question}</p>
          {a.expiryAt && (
            <p className="faint">
              Expires <Time at={a.expiryAt} />
            </p>
          )}
          {!open ? (
            <span className="faint">{sent ? "Answered." : "Answered in a later run."}</span>
          ) : single ? (
            <SchemaForm
              id={`ask-${a.id}`}
              schema={single.answerFormat!}
              submitLabel="Answer"
              value={answers[a.id]}
              onChange={set(a.id)}
              onSubmit={(v) => send({ [a.id]: v })}
            />
          ) : !a.answerFormat || a.answerFormat.type === "string" ? (
            <input
              aria-label={`answer to: ${a.question}`}
              value={(answers[a.id] as string | undefined) ?? ""}
              onChange={(e) => set(a.id)(e.target.value)}
            />
          ) : (
            <JsonEditor id={`ask-${a.id}`} value={answers[a.id]} onChange={set(a.id)} label="Answer (JSON)" rows={3} />
          )}
        </div>
      ))}
      {open && !single && (
        <div>
          <button
            className="primary"
            disabled={!asks.every((a) => answers[a.id] !== undefined && answers[a.id] !== "")}
            onClick={() => send(answers)}
          >
            Send {asks.length === 1 ? "answer" : "answers"}
          </button>
        </div>
      )}
    </div>
  );
}
