import { useEffect, useState } from "react";
import { ErrorNote, ForbiddenNote } from "../../components/notes.tsx";
import { useConnection } from "../../connection.tsx";
import { SchedulesQuery } from "../../api/schedules.ts";
import { useQuery } from "../../api/use-query.ts";
import { isAdmin } from "../../api/viewer.ts";
import { navigate } from "../../route.ts";
import { ScheduleDetail } from "./schedule-detail.tsx";
import { ScheduleEditor } from "./schedule-editor.tsx";
import { ScheduleList } from "./schedule-list.tsx";

/**
 * How often the list is read again: the API has no schedule subscription, and ticks (next tick, last run) move on
 * their own, so the screen reloads on this period as well as after each write.
 */
const RELOAD_MS = 2000;

/** Schedules, for ADMIN keys only: a lower role is told so and nothing is asked of the server. */
export function SchedulesScreen({ selected }: { selected: string | null }) {
  const { viewer } = useConnection();
  if (!viewer) return <div className="panel empty">Connecting…</div>;
  if (!isAdmin(viewer)) {
    return (
      <ForbiddenNote>
        Schedules are for ADMIN keys: only an ADMIN reads or writes them, and their runs are dispatched as the ADMIN who
        last saved them. You are {viewer.role ? `${viewer.role}` : "without access"}; enter an ADMIN key (top right) to
        manage schedules.
      </ForbiddenNote>
    );
  }
  return <Schedules selected={selected} />;
}

function Schedules({ selected }: { selected: string | null }) {
  const schedules = useQuery(SchedulesQuery, {});
  const { reload } = schedules;
  useEffect(() => {
    const timer = setInterval(reload, RELOAD_MS);
    return () => clearInterval(timer);
  }, [reload]);
  const [editing, setEditing] = useState<"new" | "edit" | null>(null);
  const list = schedules.data?.schedules ?? [];
  const current = list.find((s) => s.name === selected) ?? (selected ? undefined : list[0]);
  const saved = (name: string) => {
    setEditing(null);
    reload();
    navigate("schedules", name);
  };
  return (
    <>
      <ErrorNote error={schedules.error} />
      <div className="split">
        <ScheduleList
          schedules={schedules.data?.schedules ?? null}
          selected={current?.name ?? null}
          onAdd={() => setEditing("new")}
        />
        {editing === "new" ? (
          <ScheduleEditor key="new" schedule={null} onSaved={saved} onCancel={() => setEditing(null)} />
        ) : editing === "edit" && current ? (
          <ScheduleEditor
            key={`${current.name}@${current.version}`}
            schedule={current}
            onSaved={saved}
            onCancel={() => setEditing(null)}
          />
        ) : current ? (
          <ScheduleDetail
            key={current.name}
            schedule={current}
            onChanged={reload}
            onEdit={() => setEditing("edit")}
            onDeleted={() => {
              reload();
              navigate("schedules");
            }}
          />
        ) : (
          schedules.data && (
            <div className="panel empty">
              {selected
                ? `No schedule is named ${selected}.`
                : "No schedule yet: add one to run a tool in the background on a cron."}
            </div>
          )
        )}
      </div>
    </>
  );
}
