import { JsonEditor } from "../../components/json-editor.tsx";
import { JsonView } from "../../components/json-view.tsx";
import type { InterruptAction as Action } from "../../api/agents.ts";
import { Markdown } from "../../components/markdown.tsx";

export type Choice = "approve" | "edit" | "reject";

/**
 * One call an interrupt waits on: its tool and description, the decision picked for it while it is open, its
 * arguments (editable when the decision is edit) and the reason of a reject.
 */
export function InterruptAction({
  action: a,
  open,
  choice,
  onChoice,
  onEdit,
  message,
  onMessage,
}: {
  action: Action;
  /** Whether the decision is still to make here (the interrupt is active and not yet decided). */
  open: boolean;
  choice: Choice;
  onChoice(choice: Choice): void;
  onEdit(args: unknown): void;
  message: string;
  onMessage(message: string): void;
}) {
  return (
    <div className="action">
      <div className="spread">
        <strong className="mono">{a.tool}</strong>
        {open && (
          <div className="segmented" role="radiogroup" aria-label={`decision on ${a.tool}`}>
            {a.allowedDecisions.map((d) => (
              <button
                key={d}
                type="button"
                role="radio"
                aria-checked={choice === d}
                className={choice === d ? "active" : undefined}
                onClick={() => onChoice(d)}
              >
                {d}
              </button>
            ))}
          </div>
        )}
      </div>
      {a.description && <Markdown source={a.description} className="muted" />}
      {choice === "edit" && open ? (
        <JsonEditor
          id={`edit-${a.callId}`}
          value={a.args}
          onChange={onEdit}
          label="Arguments to run it with"
          rows={4}
        />
      ) : (
        <JsonView value={a.args} />
      )}
      {choice === "reject" && open && (
        <div className="field-inline">
          <label htmlFor={`reason-${a.callId}`}>Reason to reject {a.tool} (optional; the model reads it)</label>
          <input
            id={`reason-${a.callId}`}
            placeholder="Why not"
            value={message}
            onChange={(e) => onMessage(e.target.value)}
          />
        </div>
      )}
    </div>
  );
}
