import { useState } from "react";
import { StatusBadge } from "../../components/badges.tsx";
import { JsonView } from "../../components/json-view.tsx";
import { ErrorNote } from "../../components/notes.tsx";
import { Panel } from "../../components/panel.tsx";
import { ShortId, Time } from "../../components/time.tsx";
import { useClient } from "../../connection.tsx";
import { DeleteScheduleMutation, PutScheduleMutation, withEnabled, type Schedule } from "../../api/schedules.ts";
import { codeOf, messageOf } from "../../api/errors.ts";
import { useAction } from "../../api/use-action.ts";
import { linkTo } from "../../route.ts";
import { EnabledBadge } from "./schedule-list.tsx";

/** One schedule: its facts, next ticks, last run (a link to it in Runs), its input; edit, pause/resume, delete. */
export function ScheduleDetail({
  schedule: s,
  onChanged,
  onEdit,
  onDeleted,
}: {
  schedule: Schedule;
  onChanged(): void;
  onEdit(): void;
  onDeleted(): void;
}) {
  const client = useClient();
  const toggle = useAction();
  const remove = useAction();
  const [confirming, setConfirming] = useState(false);
  const doToggle = () =>
    toggle.run(
      async () => {
        await client.request(PutScheduleMutation, { input: withEnabled(s, !s.enabled), expectedVersion: s.version });
        onChanged();
      },
      (e) => (codeOf(e) === "CONFLICT" ? `${messageOf(e)} (it was saved elsewhere: the list reloads)` : messageOf(e)),
    );
  const doDelete = () =>
    remove.run(async () => {
      await client.request(DeleteScheduleMutation, { name: s.name });
      onDeleted();
    });
  return (
    <div className="stack" data-testid="schedule-detail" data-schedule={s.name}>
      <Panel
        title={`Schedule ${s.name}`}
        heading={
          <div className="row">
            <h2 className="mono">{s.name}</h2>
            <EnabledBadge enabled={s.enabled} />
          </div>
        }
        aside={
          <span className="row">
            <button className="primary small" onClick={() => void doToggle()} disabled={toggle.busy}>
              {s.enabled ? "Pause" : "Resume"}
            </button>
            <button className="small" onClick={onEdit}>
              Edit
            </button>
            <button className="small" onClick={() => setConfirming(true)} disabled={confirming}>
              Delete
            </button>
          </span>
        }
      >
        <div className="stack">
          {confirming && (
            <div className="note warn" role="alertdialog" aria-label="Confirm delete">
              Delete {s.name}? It fires no more ticks; the runs it dispatched stay.
              <div className="row">
                <button className="primary small" onClick={() => void doDelete()} disabled={remove.busy}>
                  {remove.busy ? "Deleting…" : `Delete ${s.name}`}
                </button>
                <button className="small" onClick={() => setConfirming(false)}>
                  Keep it
                </button>
              </div>
            </div>
          )}
          <ErrorNote error={toggle.error} />
          <ErrorNote error={remove.error} />
          <ScheduleFacts schedule={s} />
          <h4>Input</h4>
          <JsonView value={s.input} />
        </div>
      </Panel>
    </div>
  );
}

function ScheduleFacts({ schedule: s }: { schedule: Schedule }) {
  return (
    <dl className="facts wide">
      <dt>Tool</dt>
      <dd className="mono">
        <a href={linkTo("tools", s.tool)}>{s.tool}</a>
      </dd>
      <dt>Cron</dt>
      <dd>
        <code>{s.cron}</code> in {s.timeZone}
      </dd>
      <dt>Next ticks</dt>
      <dd data-testid="schedule-next-ticks">
        {s.nextTicks.length ? (
          s.nextTicks.map((t, i) => (
            <span key={t}>
              {i > 0 && " · "}
              <Time at={t} />
            </span>
          ))
        ) : (
          <span className="faint">none: paused</span>
        )}
      </dd>
      <dt>Last tick</dt>
      <dd>
        <Time at={s.lastTickAt} />
      </dd>
      <dt>Last run</dt>
      <dd data-testid="schedule-last-run">
        {s.lastRun ? (
          <a href={linkTo("runs", s.lastRun.id)} className="row" data-run={s.lastRun.id}>
            <ShortId id={s.lastRun.id} />
            <StatusBadge status={s.lastRun.status} />
          </a>
        ) : (
          <span className="faint">none yet</span>
        )}
      </dd>
      <dt>Runs as</dt>
      <dd>
        {s.callerRole}
        {s.callerKey && <span className="mono"> ({s.callerKey})</span>}
      </dd>
      <dt>Version</dt>
      <dd>
        v{s.version}, saved <Time at={s.updatedAt} />
      </dd>
    </dl>
  );
}
