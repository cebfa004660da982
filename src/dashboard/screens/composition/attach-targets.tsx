import type { Manifest } from "../../api/composition.ts";
import type { Tool } from "../../api/tools.ts";

/** Where an extension attaches: the tool, and the manifest saved with the combo. */
export function AttachTargets({
  tools,
  tool,
  onTool,
  manifests,
  target,
  onTarget,
}: {
  tools: readonly Tool[];
  tool: string;
  onTool(name: string): void;
  manifests: readonly Manifest[];
  target: string;
  onTarget(name: string): void;
}) {
  return (
    <div className="filters">
      <label className="field-inline">
        <span>Tool</span>
        <select value={tool} onChange={(ev) => onTool(ev.target.value)} aria-label="Tool to attach to">
          <option value="">choose…</option>
          {tools.map((t) => (
            <option key={t.name}>{t.name}</option>
          ))}
        </select>
      </label>
      <label className="field-inline">
        <span>Manifest</span>
        <select value={target} onChange={(ev) => onTarget(ev.target.value)} aria-label="Manifest">
          {manifests.map((m) => (
            <option key={m.name} value={m.name}>
              {m.name} v{m.version}
              {m.active ? " (active)" : ""}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
