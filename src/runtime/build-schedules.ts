import type { Duty } from "../cluster/duty.ts";
import type { RunRequest } from "../dispatch/request.ts";
import { failureLog } from "../failure-log.ts";
import type { RuntimeOptions } from "../runtime-types.ts";
import { ScheduleService } from "../schedules/schedule-service.ts";
import { ScheduleStore } from "../schedules/schedule-store.ts";
import { scheduleTicks } from "../schedules/schedule-ticks.ts";
import type { Stores } from "./open-stores.ts";
import type { Builtins } from "./register-builtins.ts";
import type { Membership } from "./join-cluster.ts";
import type { Dispatch } from "./build-dispatch.ts";

/** The schedule service, and on a server its tick duty (stopped first when the runtime drains). */
export interface BuiltSchedules {
  schedules: ScheduleService;
  ticks: Duty | null;
}

/** Builds the schedule service and, on a server, starts its tick duty (docs/run-lifecycle.md §11.7). */
export async function buildSchedules(
  options: RuntimeOptions,
  { db, log, secrets }: Stores,
  { surface }: Builtins,
  { duties }: Membership,
  { dispatcher, cluster }: Dispatch,
): Promise<BuiltSchedules> {
  const store = new ScheduleStore(db);
  const deps = { store, run: (req: RunRequest) => dispatcher.runDetailed(req), log, failures: failureLog(log) };
  const ticks = duties === "server" ? scheduleTicks(deps, options.scheduleTickMs ?? 1000) : null;
  if (ticks) await cluster.start(ticks);
  return { schedules: new ScheduleService(store, (tool) => surface.resolve(tool), secrets), ticks };
}
