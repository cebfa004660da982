import { useState } from "react";
import { JsonEditor } from "../../components/json-editor.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import { SchemaForm } from "../../components/schema-form.tsx";
import { useClient } from "../../connection.tsx";
import { useAction } from "../../api/use-action.ts";
import type { Interaction } from "../../api/interactions.ts";
import type { ToolRun } from "../../api/runs.ts";

/**
 * The answer to a pending interaction, drawn from its answerFormat (text when it has none, as the agent console takes
 * it, or any JSON on request). The server validates it too, and resumes the run once all its questions are
 * answered; the run it returns goes to `onAnswered`.
 */
export function AnswerForm({ interaction, onAnswered }: { interaction: Interaction; onAnswered(run: ToolRun): void }) {
  const client = useClient();
  const [value, setValue] = useState<unknown>(undefined);
  const { busy, error, run } = useAction();
  const answer = (a: unknown) => run(async () => onAnswered(await client.answerInteraction(interaction.id, a)));

  return (
    <div className="stack answer">
      {interaction.answerFormat ? (
        <SchemaForm
          id={`answer-${interaction.id}`}
          schema={interaction.answerFormat}
          value={value}
          onChange={setValue}
          onSubmit={answer}
          submitLabel={busy ? "Sending…" : "Answer"}
          disabled={busy}
        />
      ) : (
        <FreeAnswer id={`answer-${interaction.id}`} busy={busy} onSubmit={answer} />
      )}
      <ErrorNote error={error} />
    </div>
  );
}

/** An answer with no answerFormat: the text typed (sent as a string), or any JSON when "Answer as JSON" is ticked. */
function FreeAnswer({ id, busy, onSubmit }: { id: string; busy: boolean; onSubmit(answer: unknown): void }) {
  const [asJson, setAsJson] = useState(false);
  const [text, setText] = useState("");
  const [json, setJson] = useState<unknown>(undefined);
  const answer = asJson ? json : text === "" ? undefined : text;
  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        if (answer !== undefined) onSubmit(answer);
      }}
    >
      {asJson ? (
        <JsonEditor id={id} value={json} onChange={setJson} label="Answer (any JSON)" rows={3} />
      ) : (
        <>
          <label htmlFor={id}>Answer</label>
          <textarea id={id} rows={2} value={text} onChange={(e) => setText(e.target.value)} />
        </>
      )}
      <label className="row">
        <input type="checkbox" checked={asJson} onChange={(e) => setAsJson(e.target.checked)} />
        <span>Answer as JSON</span>
      </label>
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy || answer === undefined}>
          {busy ? "Sending…" : "Answer"}
        </button>
      </div>
    </form>
  );
}
