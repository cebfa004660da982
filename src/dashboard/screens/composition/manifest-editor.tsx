import { useState } from "react";
import { IssueList } from "../../components/issue-list.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import type { Manifest } from "../../api/composition.ts";
import { manifestText, parseManifestText, type ManifestFile, type ManifestFormat } from "../../api/manifest-text.ts";
import { ManifestDiff } from "./manifest-diff.tsx";
import { useManifestSave } from "./use-manifest-save.ts";

/** What the editor opens: a new manifest, a copy of one (a new name), or a new version of one. */
export type EditorStart = { mode: "new" } | { mode: "copy" | "edit"; manifest: Manifest };

const TEMPLATE = {
  name: "my-manifest",
  description: "What this surface is for.",
  document: { tools: { include: ["echo", "calculate"] } },
};

function startText(start: EditorStart, format: ManifestFormat): string {
  if (start.mode === "new") return manifestText(TEMPLATE, format);
  const m = start.manifest;
  return manifestText({ ...m, name: start.mode === "copy" ? `${m.name}-copy` : m.name }, format);
}

/**
 * The manifest editor (ADMIN): the manifest as YAML or JSON (as `tai manifests export` writes it), parsed as it is
 * typed (a parse error names its line and column), saved with putManifest — a new version of the manifest it opened
 * with `expectedVersion` (a save in between is a CONFLICT, not overwritten), or a new manifest. The server validates on
 * save (there is no dry run): a refusal's issues show at their paths, which are the file's top-level fields.
 */
export function ManifestEditor({
  start,
  onSaved,
  onCancel,
}: {
  start: EditorStart;
  onSaved(name: string): void;
  onCancel(): void;
}) {
  const [format, setFormat] = useState<ManifestFormat>("yaml");
  const [text, setText] = useState(() => startText(start, "yaml"));
  const parsed = parseManifestText(text, format);
  const opened = start.mode === "edit" ? start.manifest : null;
  const { busy, error, issues, save } = useManifestSave(opened, onSaved);
  const asVersion = opened && parsed.file?.name === opened.name ? opened.version : undefined;
  // A new version of the active manifest changes the live surface at once: its diff is shown, and confirmed, first.
  const live = asVersion !== undefined && opened!.active;
  const [confirming, setConfirming] = useState(false);

  const switchTo = (next: ManifestFormat) => {
    if (next === format || !parsed.file) return;
    setText(manifestText(parsed.file, next));
    setFormat(next);
  };

  const title = start.mode === "edit" ? `Edit ${start.manifest.name}` : "New manifest";
  return (
    <section className="panel" aria-label="Manifest editor">
      <header>
        <h2>{title}</h2>
        {opened && <span className="muted">editing version {opened.version}</span>}
      </header>
      <div className="body stack">
        <FormatPicker format={format} canSwitch={parsed.file !== undefined} onSwitch={switchTo} />
        <textarea
          className="manifest-text mono"
          aria-label="Manifest text"
          spellCheck={false}
          rows={16}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setConfirming(false);
          }}
        />
        <ParseNote parsed={parsed} format={format} />
        <ErrorNote error={error} />
        <IssueList issues={issues} />
        {live && confirming && parsed.file && (
          <LiveConfirm manifest={opened!} version={asVersion + 1} next={parsed.file.document} />
        )}
        <div className="form-actions">
          <button
            className="primary"
            disabled={busy || !parsed.file}
            onClick={() => (live && !confirming ? setConfirming(true) : void save(parsed.file, asVersion))}
          >
            {saveLabel(busy, asVersion, live && confirming)}
          </button>
          <button className="small" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
        </div>
      </div>
    </section>
  );
}

/** The YAML / JSON choice: switching rewrites the text in the other format, so it needs text that parses. */
function FormatPicker({
  format,
  canSwitch,
  onSwitch,
}: {
  format: ManifestFormat;
  canSwitch: boolean;
  onSwitch(next: ManifestFormat): void;
}) {
  return (
    <div className="row" role="radiogroup" aria-label="Format">
      {(["yaml", "json"] as const).map((f) => (
        <label key={f} className="row">
          <input
            type="radio"
            name="manifest-format"
            checked={format === f}
            disabled={!canSwitch && format !== f}
            onChange={() => onSwitch(f)}
          />
          {f.toUpperCase()}
        </label>
      ))}
      {!canSwitch && <span className="faint">fix the text to switch format</span>}
    </div>
  );
}

/** The confirmation before saving a new version of the active `manifest`: what changes on the live surface. */
function LiveConfirm({
  manifest,
  version,
  next,
}: {
  manifest: Manifest;
  version: number;
  next: ManifestFile["document"];
}) {
  return (
    <div className="note warn" role="alertdialog" aria-label="Confirm saving the active manifest">
      {manifest.name} is active: version {version} replaces the live surface for every caller at once.
      <ManifestDiff current={manifest.document} currentName={manifest.name} next={next} />
    </div>
  );
}

/** The save button's words: a create, a new version, or (once confirming) a new version of the active manifest. */
function saveLabel(busy: boolean, asVersion: number | undefined, applying: boolean): string {
  if (busy) return "Saving…";
  if (asVersion === undefined) return "Create manifest";
  return applying ? `Save version ${asVersion + 1} and apply it` : `Save as version ${asVersion + 1}`;
}

function ParseNote({ parsed, format }: { parsed: ReturnType<typeof parseManifestText>; format: ManifestFormat }) {
  if (!parsed.problem)
    return (
      <span className="muted" data-testid="parse-state">
        Parses as {format.toUpperCase()}: {parsed.file.name}. The server checks the rest when you save.
      </span>
    );
  const { line, column, message } = parsed.problem;
  return (
    <span className="problem bad-text" data-testid="parse-state" role="status">
      {line !== undefined ? `Line ${line}, column ${column}: ` : ""}
      {message}
    </span>
  );
}
