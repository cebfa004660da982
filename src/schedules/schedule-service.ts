import { requireAdmin } from "../auth/ownership.ts";
import type { Caller } from "../auth/roles.ts";
import { ApiError } from "../errors.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import type { Secrets } from "../secrets/secrets.ts";
import { nextTick, type ScheduleInput, type ScheduleRecord } from "./schedule-record.ts";
import { scheduleIssues } from "./schedule-checks.ts";
import type { ScheduleStore } from "./schedule-store.ts";

const READ = "read schedules";
const WRITE = "write schedules";

/** Stored cron schedules (docs/run-lifecycle.md §11.7): ADMIN only; every refusal stores nothing. */
export class ScheduleService {
  constructor(
    private readonly store: ScheduleStore,
    private readonly resolve: (tool: string) => SurfaceEntry | undefined,
    private readonly secrets: Secrets,
  ) {}

  list(caller: Caller): Promise<ScheduleRecord[]> {
    requireAdmin(caller, READ);
    return this.store.all();
  }

  get(caller: Caller, name: string): Promise<ScheduleRecord | null> {
    requireAdmin(caller, READ);
    return this.store.get(name);
  }

  /**
   * Creates (`expectedVersion` omitted or 0; CONFLICT when the name is taken) or replaces (`expectedVersion` must be
   * the stored version, else CONFLICT) a schedule. The writer becomes the caller its runs are dispatched as; the next
   * tick is computed from now.
   */
  async put(caller: Caller, input: ScheduleInput, expectedVersion = 0): Promise<ScheduleRecord> {
    requireAdmin(caller, WRITE);
    const issues = scheduleIssues(input, this.resolve, this.secrets);
    if (!Number.isInteger(expectedVersion) || expectedVersion < 0)
      issues.push({ path: "/expectedVersion", message: "must be 0 (create) or the stored version (replace)" });
    if (issues.length)
      throw new ApiError("BAD_USER_INPUT", `schedule "${input.name}" refused: ${issues[0]!.message}`, issues);
    const timeZone = input.timeZone ?? "UTC";
    const enabled = input.enabled ?? true;
    return this.store.put(
      {
        name: input.name,
        tool: input.tool,
        input: input.input ?? {},
        cron: input.cron,
        timeZone,
        enabled,
        caller,
        nextTickAt: enabled ? nextTick(input.cron, timeZone, new Date()) : null,
      },
      expectedVersion,
    );
  }

  async delete(caller: Caller, name: string): Promise<boolean> {
    requireAdmin(caller, WRITE);
    await this.store.delete(name);
    return true;
  }
}
