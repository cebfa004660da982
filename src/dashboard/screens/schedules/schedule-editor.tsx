import type { ReactNode } from "react";
import { IssueList, issuesAt } from "../../components/issue-list.tsx";
import { JsonEditor } from "../../components/json-editor.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import type { Schedule } from "../../api/schedules.ts";
import { ToolsQuery } from "../../api/tools.ts";
import { useQuery } from "../../api/use-query.ts";
import { useScheduleEditor, type ScheduleEditorState } from "./use-schedule-editor.ts";

const FIELDS = ["/name", "/tool", "/cron", "/timeZone", "/input"];

/**
 * Adds a schedule, or replaces one with `expectedVersion` (the version this editor opened: a save in between is
 * refused as CONFLICT). A refusal (a bad cron, an unknown time zone or tool, an input the tool refuses) shows each
 * issue at its field, stores nothing, and the form keeps everything typed.
 */
export function ScheduleEditor({
  schedule,
  onSaved,
  onCancel,
}: {
  schedule: Schedule | null;
  onSaved(name: string): void;
  onCancel(): void;
}) {
  const editor = useScheduleEditor(schedule, onSaved);
  const { issues, busy, error, ready, save } = editor;
  const fieldIssues = (path: string) => <IssueList issues={issuesAt(issues, path)} />;
  return (
    <section className="panel" aria-label="Schedule editor">
      <header>
        <h2>{schedule ? `Edit ${schedule.name}` : "Add schedule"}</h2>
        {schedule && <span className="muted">editing version {schedule.version}</span>}
      </header>
      <div className="body stack">
        <ScheduleTextFields editor={editor} locked={!!schedule} fieldIssues={fieldIssues} />
        <div className="field-inline">
          <span>Input (JSON)</span>
          <p className="muted small">
            What each tick dispatches, valid for the tool. It is stored with the schedule and each run, so it may hold
            no secret.
          </p>
          <JsonEditor id="schedule-input" value={editor.input} onChange={editor.setInput} rows={5} />
          {fieldIssues("/input")}
        </div>
        <label className="row">
          <input
            type="checkbox"
            checked={editor.enabled}
            onChange={(e) => editor.setEnabled(e.target.checked)}
            aria-label="Schedule enabled"
          />
          <span>Enabled (a paused schedule fires nothing)</span>
        </label>
        <IssueList issues={issues.filter((i) => !FIELDS.some((p) => issuesAt([i], p).length))} />
        <ErrorNote error={error} />
        <div className="row">
          <button className="primary" onClick={() => void save()} disabled={busy || !ready}>
            {busy ? "Saving…" : schedule ? `Save as version ${schedule.version + 1}` : "Add schedule"}
          </button>
          <button className="link" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </div>
    </section>
  );
}

function ScheduleTextFields({
  editor,
  locked,
  fieldIssues,
}: {
  editor: ScheduleEditorState;
  locked: boolean;
  fieldIssues: (path: string) => ReactNode;
}) {
  const tools = useQuery(ToolsQuery, {});
  return (
    <>
      <label className="field-inline">
        <span>Name</span>
        <input
          value={editor.name}
          onChange={(e) => editor.setName(e.target.value)}
          disabled={locked}
          aria-label="Schedule name"
          placeholder="nightly-report"
        />
        {fieldIssues("/name")}
      </label>
      <label className="field-inline">
        <span>Tool or preset</span>
        <input
          value={editor.tool}
          onChange={(e) => editor.setTool(e.target.value)}
          aria-label="Schedule tool"
          list="schedule-tools"
        />
        <datalist id="schedule-tools">
          {(tools.data?.tools ?? []).map((t) => (
            <option key={t.name} value={t.name} />
          ))}
        </datalist>
        {fieldIssues("/tool")}
      </label>
      <label className="field-inline">
        <span>Cron</span>
        <input value={editor.cron} onChange={(e) => editor.setCron(e.target.value)} aria-label="Schedule cron" />
        <span className="muted small">5 fields (minute first) or 6 (seconds first), e.g. “0 9 * * 1-5”.</span>
        {fieldIssues("/cron")}
      </label>
      <label className="field-inline">
        <span>Time zone</span>
        <input
          value={editor.timeZone}
          onChange={(e) => editor.setTimeZone(e.target.value)}
          aria-label="Schedule time zone"
          placeholder="Europe/Paris"
        />
        {fieldIssues("/timeZone")}
      </label>
    </>
  );
}
