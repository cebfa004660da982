import { useState } from "react";
import { JsonEditor } from "../../components/json-editor.tsx";
import { SchemaForm } from "../../components/schema-form.tsx";
import type { Ask, Terminal } from "../../api/agents.ts";

/** An AsksFinal: the agent's questions to you, each with a form from its answerFormat; the answers resume the thread. */
export function AsksCard({ event, active, onAnswer }: { event: Extract<Terminal, { __typename: "AsksFinal" }>; active: boolean; onAnswer(resume: { answers: Record<string, unknown> }): void }) {
  const asks = event.asks as unknown as Ask[];
  const [answers, setAnswers] = useState<Record<string, unknown>>({});
  const [sent, setSent] = useState(false);
  const complete = asks.every((a) => answers[a.id] !== undefined);
  const send = (all: Record<string, unknown>) => {
    setSent(true);
    onAnswer({ answers: all });
  };
  return (
    <div className="card pause" data-testid="asks">
      <h3>The agent asks</h3>
      {asks.map((a) => (
        <div key={a.id} className="action">
          <p>{a.question}</p>
          {!active || sent ? (
            <span className="faint">{sent ? "Answered." : "Answered in a later run."}</span>
          ) : a.answerFormat && asks.length === 1 ? (
            <SchemaForm id={`ask-${a.id}`} schema={a.answerFormat} submitLabel="Answer" value={answers[a.id]} onChange={(v) => setAnswers({ ...answers, [a.id]: v })} onSubmit={(v) => send({ [a.id]: v })} />
          ) : a.answerFormat && (a.answerFormat as { type?: string }).type === "string" ? (
            <input aria-label={a.question} value={(answers[a.id] as string) ?? ""} onChange={(e) => setAnswers({ ...answers, [a.id]: e.target.value })} />
          ) : (
            <JsonEditor id={`ask-${a.id}`} value={answers[a.id]} onChange={(v) => setAnswers({ ...answers, [a.id]: v })} label="Answer (JSON)" rows={3} />
          )}
        </div>
      ))}
      {active && !sent && asks.length > 1 && (
        <div>
          <button className="primary" disabled={!complete} onClick={() => send(answers)}>
            Send answers
          </button>
        </div>
      )}
    </div>
  );
}
