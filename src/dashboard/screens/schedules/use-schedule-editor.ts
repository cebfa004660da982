import { useState } from "react";
import { useClient } from "../../connection.tsx";
import { PutScheduleMutation, type Schedule } from "../../api/schedules.ts";
import { codeOf, issuesOf, messageOf, type Issue } from "../../api/errors.ts";
import { useAction } from "../../api/use-action.ts";

/**
 * The schedule editor's state: the fields as typed, the issues of the last refusal (the server's, at their paths:
 * `/cron`, `/timeZone`, `/tool`, `/input/…`), and `save`, which puts the schedule with `expectedVersion` (the version
 * the editor opened) and explains a CONFLICT.
 */
export type ScheduleEditorState = ReturnType<typeof useScheduleEditor>;

export function useScheduleEditor(schedule: Schedule | null, onSaved: (name: string) => void) {
  const client = useClient();
  const [name, setName] = useState(schedule?.name ?? "");
  const [tool, setTool] = useState(schedule?.tool ?? "");
  const [cron, setCron] = useState(schedule?.cron ?? "0 9 * * 1-5");
  const [timeZone, setTimeZone] = useState(schedule?.timeZone ?? "UTC");
  const [input, setInput] = useState<unknown>(schedule?.input ?? {});
  const [enabled, setEnabled] = useState(schedule?.enabled ?? true);
  const [issues, setIssues] = useState<Issue[]>([]);
  const { busy, error, run } = useAction();
  const inputOk = !!input && typeof input === "object" && !Array.isArray(input);
  const ready = !!name.trim() && !!tool.trim() && !!cron.trim() && inputOk;

  const save = () =>
    run(
      async () => {
        setIssues([]);
        const put = {
          name: name.trim(),
          tool: tool.trim(),
          cron: cron.trim(),
          timeZone: timeZone.trim() || "UTC",
          input: input as Record<string, unknown>,
          enabled,
        };
        await client.request(PutScheduleMutation, { input: put, expectedVersion: schedule?.version ?? null });
        onSaved(put.name);
      },
      (e) => {
        setIssues(issuesOf(e));
        const code = codeOf(e);
        if (code === "CONFLICT" && schedule)
          return `${messageOf(e)} (someone saved it since this editor opened version ${schedule.version}: reopen it from the list)`;
        return code ? `${code}: ${messageOf(e)}` : messageOf(e);
      },
    );

  return {
    ...{ name, setName, tool, setTool, cron, setCron, timeZone, setTimeZone },
    ...{ input, setInput, enabled, setEnabled },
    ...{ issues, busy, error, ready, save },
  };
}
