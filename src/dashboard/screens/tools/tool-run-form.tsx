import { useState } from "react";
import { JsonEditor } from "../../components/json-editor.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import { SchemaForm } from "../../components/schema-form.tsx";
import { useClient } from "../../connection.tsx";
import { useAction } from "../../api/use-action.ts";
import type { ToolRun } from "../../api/runs.ts";
import type { Tool } from "../../api/tools.ts";
import { RunOutcome } from "../runs/run-outcome.tsx";

/**
 * The run form of a surface entry, drawn from its inputSchema (or typed as JSON), which
 * dispatches through the chokepoint and shows the run it returns. The dispatch answers
 * when the run ends or parks; meanwhile the run shows live in the latest runs below.
 */
export function ToolRunForm({ tool }: { tool: Tool }) {
  const client = useClient();
  const [value, setValue] = useState<unknown>({});
  const [asJson, setAsJson] = useState(false);
  const [run, setRun] = useState<ToolRun | null>(null);
  const { busy, error, run: act } = useAction();

  const dispatch = (input: unknown) => {
    setRun(null);
    return act(async () => setRun(await client.dispatch(tool.name, (input ?? {}) as Record<string, unknown>)));
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
      <ErrorNote error={error} />
      {run && <RunOutcome run={run} />}
    </div>
  );
}
