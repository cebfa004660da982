import { useState } from "react";
import { JsonEditor } from "../../components/json-editor.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import { SchemaForm } from "../../components/schema-form.tsx";
import { useClient } from "../../connection.tsx";
import { useAction } from "../../api/use-action.ts";
import { isOpen, type RunEvent, type ToolRun } from "../../api/runs.ts";
import { useStream } from "../../api/use-stream.ts";
import type { Tool } from "../../api/tools.ts";
import { RunOutcome } from "../runs/run-outcome.tsx";

/**
 * The run form of a surface entry, drawn from its inputSchema (or typed as JSON), which
 * dispatches through the chokepoint and shows the run it returns. The dispatch answers
 * when the run ends or parks; meanwhile the run shows live in the latest runs below. Run in the background, the
 * dispatch answers at once with the run QUEUED, which the form then follows (runEvents) to its end.
 */
export function ToolRunForm({ tool }: { tool: Tool }) {
  const client = useClient();
  const [value, setValue] = useState<unknown>({});
  const [asJson, setAsJson] = useState(false);
  const [background, setBackground] = useState(false);
  const [run, setRun] = useState<ToolRun | null>(null);
  const { busy, error, run: act } = useAction();
  const followed = run && isOpen(run) ? run.id : null;
  const stream = useStream(
    followed ? () => client.runEvents({ runId: followed, afterSeq: 0 }) : null,
    (e: RunEvent) => setRun(e.run),
    [client, followed],
  );

  const dispatch = (input: unknown) => {
    setRun(null);
    const body = (input ?? {}) as Record<string, unknown>;
    return act(async () => setRun(await client.dispatch(tool.name, body, { background })));
  };

  const toggle = (
    <button type="button" className="link" onClick={() => setAsJson(!asJson)}>
      {asJson ? "Edit as a form" : "Edit as JSON"}
    </button>
  );
  return (
    <div className="stack">
      {asJson ? (
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void dispatch(value);
          }}
        >
          <JsonEditor id={`json-${tool.name}`} value={value} onChange={setValue} label="Input (JSON)" />
          <div className="form-actions">
            <button type="submit" className="primary" disabled={busy || value === undefined}>
              {busy ? "Running…" : "Run"}
            </button>
            {toggle}
          </div>
        </form>
      ) : (
        <SchemaForm
          id={`run-${tool.name}`}
          schema={tool.inputSchema}
          value={value}
          onChange={setValue}
          onSubmit={dispatch}
          submitLabel={busy ? "Running…" : "Run"}
          disabled={busy}
        >
          {toggle}
        </SchemaForm>
      )}
      <label className="field-inline">
        <input
          type="checkbox"
          checked={background}
          onChange={(e) => setBackground(e.target.checked)}
          aria-label="Run in the background"
        />
        <span>Run in the background (queued; the form follows it to its end)</span>
      </label>
      <ErrorNote error={error ?? stream.error} />
      {run && <RunOutcome run={run} />}
    </div>
  );
}
