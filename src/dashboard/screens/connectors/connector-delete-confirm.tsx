import type { Connector } from "../../api/connectors.ts";
import type { Action } from "../../api/use-action.ts";

/** The question before a connector is deleted: what leaves the surface, delete or keep it. */
export function DeleteConfirm({
  connector: c,
  remove,
  onDelete,
  onKeep,
}: {
  connector: Connector;
  remove: Action;
  onDelete(): void;
  onKeep(): void;
}) {
  return (
    <div className="note warn" role="alertdialog" aria-label="Confirm delete">
      Delete {c.name}? Its {c.tools.length} tool{c.tools.length === 1 ? "" : "s"} leave the surface, and presets over
      them stop working.
      <div className="row">
        <button className="primary small" onClick={onDelete} disabled={remove.busy}>
          {remove.busy ? "Deleting…" : `Delete ${c.name}`}
        </button>
        <button className="small" onClick={onKeep}>
          Keep it
        </button>
      </div>
    </div>
  );
}
