import { useState } from "react";
import { IssueList } from "../../components/issue-list.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import { useClient } from "../../connection.tsx";
import { PutManifestMutation, type Manifest } from "../../api/composition.ts";
import { codeOf, issuesOf, messageOf, type Issue } from "../../api/errors.ts";
import { manifestText, parseManifestText, type ManifestFormat } from "../../api/manifest-text.ts";
import { useAction } from "../../api/use-action.ts";
import { ManifestDiff } from "./manifest-diff.tsx";

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
  const client = useClient();
  const [format, setFormat] = useState<ManifestFormat>("yaml");
  const [text, setText] = useState(() => startText(start, "yaml"));
  const [issues, setIssues] = useState<Issue[]>([]);
  const { busy, error, run } = useAction();
  const parsed = parseManifestText(text, format);
  const opened = start.mode === "edit" ? start.manifest : null;
  const asVersion = opened && parsed.file?.name === opened.name ? opened.version : undefined;
  // A new version of the active manifest changes the live surface at once: its diff is shown, and confirmed, first.
  const live = asVersion !== undefined && opened!.active;
  const [confirming, setConfirming] = useState(false);

  const switchTo = (next: ManifestFormat) => {
    if (next === format || !parsed.file) return;
    setText(manifestText(parsed.file, next));
    setFormat(next);
  };
  const save = () =>
    run(
      async () => {
        if (!parsed.file) return;
        setIssues([]);
        const saved = await client.request(PutManifestMutation, {
          input: { ...parsed.file },
          ...(asVersion !== undefined ? { expectedVersion: asVersion } : {}),
        });
        onSaved(saved.putManifest.name);
      },
      (e) => {
        // A create under a name that exists: a CONFLICT whose one issue, `/expectedVersion`, is no path of the text.
        const found = issuesOf(e).filter((i) => i.path !== "/expectedVersion");
        // The input's `document` fields are the text's top-level fields: an issue at /document/tools is at /tools.
        setIssues(found.map((i) => ({ ...i, path: i.path.replace(/^\/document(?=\/|$)/, "") })));
        if (codeOf(e) === "CONFLICT" && asVersion !== undefined)
          return `${messageOf(e)} (someone saved ${opened!.name} since this editor opened version ${asVersion}: copy your text, reopen it from the list and edit the newer version)`;
        if (codeOf(e) === "CONFLICT")
          return `A manifest named ${parsed.file!.name} exists already: choose another name, or open it from the list and edit it.`;
        if (found.length)
          return `The server refused the manifest (${codeOf(e) ?? "error"}): ${found.length} problem${found.length === 1 ? "" : "s"}, each at its path in the text:`;
        return messageOf(e);
      },
    );

  const title = start.mode === "edit" ? `Edit ${start.manifest.name}` : "New manifest";
  return (
    <section className="panel" aria-label="Manifest editor">
      <header>
        <h2>{title}</h2>
        {opened && <span className="muted">editing version {opened.version}</span>}
      </header>
      <div className="body stack">
        <div className="row" role="radiogroup" aria-label="Format">
          {(["yaml", "json"] as const).map((f) => (
            <label key={f} className="row">
              <input
                type="radio"
                name="manifest-format"
                checked={format === f}
                disabled={!parsed.file && format !== f}
                onChange={() => switchTo(f)}
              />
              {f.toUpperCase()}
            </label>
          ))}
          {!parsed.file && <span className="faint">fix the text to switch format</span>}
        </div>
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
          <div className="note warn" role="alertdialog" aria-label="Confirm saving the active manifest">
            {opened!.name} is active: version {asVersion + 1} replaces the live surface for every caller at once.
            <ManifestDiff current={opened!.document} currentName={opened!.name} next={parsed.file.document} />
          </div>
        )}
        <div className="form-actions">
          <button
            className="primary"
            disabled={busy || !parsed.file}
            onClick={() => (live && !confirming ? setConfirming(true) : void save())}
          >
            {busy
              ? "Saving…"
              : asVersion === undefined
                ? "Create manifest"
                : live && confirming
                  ? `Save version ${asVersion + 1} and apply it`
                  : `Save as version ${asVersion + 1}`}
          </button>
          <button className="small" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
        </div>
      </div>
    </section>
  );
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
