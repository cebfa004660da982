import { useState } from "react";
import { JsonEditor } from "../../components/json-editor.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import { SchemaForm } from "../../components/schema-form.tsx";
import { useClient } from "../../connection.tsx";
import { useAction } from "../../api/use-action.ts";
import type { Interaction } from "../../api/interactions.ts";
import type { ToolRun } from "../../api/runs.ts";

/**
 * The answer to a pending interaction, drawn from its answerFormat (typed as JSON when it
 * has none). The server validates it too, and resumes the run once all its questions are
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
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void answer(value);
          }}
        >
          <JsonEditor
            id={`answer-${interaction.id}`}
            value={value}
            onChange={setValue}
            label="Answer (any JSON)"
            rows={3}
          />
          <div className="form-actions">
            <button type="submit" className="primary" disabled={busy || value === undefined}>
              {busy ? "Sending…" : "Answer"}
            </button>
          </div>
        </form>
      )}
      <ErrorNote error={error} />
    </div>
  );
}
