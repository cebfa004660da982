import { Badge, StatusBadge } from "../../components/badges.tsx";
import { Time } from "../../components/time.tsx";
import type { Schedule } from "../../api/schedules.ts";
import { linkTo } from "../../route.ts";

/** Whether a schedule fires: enabled or paused. */
export function EnabledBadge({ enabled }: { enabled: boolean }) {
  return (
    <Badge tone={enabled ? "ok" : "idle"} title={enabled ? "it fires on each tick" : "it fires nothing"}>
      <span data-testid="schedule-state">{enabled ? "enabled" : "paused"}</span>
    </Badge>
  );
}

/** Every schedule: its tool, cron and time zone, whether it fires, its next tick and its last run. */
export function ScheduleList({
  schedules,
  selected,
  onAdd,
}: {
  schedules: Schedule[] | null;
  selected: string | null;
  onAdd(): void;
}) {
  return (
    <section className="panel" aria-label="Schedules">
      <header>
        <h2>Schedules</h2>
        <button className="primary small" onClick={onAdd}>
          Add schedule
        </button>
      </header>
      <div className="body flush">
        {!schedules && <div className="empty">Loading…</div>}
        {schedules && !schedules.length && <div className="empty">No schedule yet.</div>}
        <ul className="item-list" data-testid="schedule-list">
          {(schedules ?? []).map((s) => (
            <li key={s.name}>
              <a
                href={linkTo("schedules", s.name)}
                className={`item${s.name === selected ? " active" : ""}`}
                data-schedule={s.name}
              >
                <span className="spread">
                  <strong className="mono">{s.name}</strong>
                  <EnabledBadge enabled={s.enabled} />
                </span>
                <span className="muted" data-testid="schedule-summary">
                  <span className="mono">{s.tool}</span> · <code>{s.cron}</code> · {s.timeZone}
                </span>
                <span className="faint small row">
                  {s.enabled ? (
                    <>
                      next <Time at={s.nextTickAt} />
                    </>
                  ) : (
                    "no next tick"
                  )}
                  {s.lastRun && <StatusBadge status={s.lastRun.status} />}
                </span>
              </a>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
