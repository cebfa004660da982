import { useState } from "react";
import { documentLines, manifestChanges, type Change } from "../../api/manifest-diff.ts";

const SAY: Record<Change["sign"], string> = { "+": "adds", "-": "removes", "~": "changes" };

/**
 * What activating a manifest changes against the active one: the changes in words (tools selected, combos, modules,
 * retry), then the line diff of the two documents' canonical YAML, folded open.
 */
export function ManifestDiff({
  current,
  currentName,
  next,
}: {
  current: Record<string, unknown> | null;
  currentName: string | null;
  next: Record<string, unknown>;
}) {
  const [lines, setLines] = useState(true);
  const changes = manifestChanges(current, next);
  const diff = documentLines(current, next);
  return (
    <div className="manifest-diff" data-testid="manifest-diff">
      <h4>
        Against {currentName ? `the active manifest ${currentName}` : "the whole registered surface (no manifest)"}
      </h4>
      {!current && (
        <span className="muted">
          No manifest is active, so every registered name is served: a <code>tools.include</code> below is what stays,
          and every other name leaves the surface.
        </span>
      )}
      {changes.length ? (
        <ul className="changes">
          {changes.map((c, i) => (
            <li key={i} data-change={c.sign} className={c.sign === "+" ? "ok-text" : c.sign === "-" ? "bad-text" : ""}>
              {c.sign} {SAY[c.sign]} <code>{c.what}</code> in <span className="mono">{c.where}</span>
            </li>
          ))}
        </ul>
      ) : (
        <span className="faint">The documents are the same: the surface does not change.</span>
      )}
      <button type="button" className="link" onClick={() => setLines(!lines)}>
        {lines ? "Hide the line diff" : "Show the line diff"}
      </button>
      {lines && (
        <pre className="line-diff" aria-label="Line diff">
          {diff.map((l, i) => (
            <div key={i} className={l.sign === "+" ? "added" : l.sign === "-" ? "removed" : undefined}>
              {l.sign} {l.text}
            </div>
          ))}
        </pre>
      )}
    </div>
  );
}
