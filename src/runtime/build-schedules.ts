import type { RuntimeOptions } from "../runtime-types.ts";
import { ScheduleService } from "../schedules/schedule-service.ts";
import { ScheduleStore } from "../schedules/schedule-store.ts";
import { scheduleTicks } from "../schedules/schedule-ticks.ts";
import type { Stores } from "./open-stores.ts";
import type { Builtins } from "./register-builtins.ts";
import type { Membership } from "./join-cluster.ts";
import type { Dispatch } from "./build-dispatch.ts";

/** Builds the schedule service and, on a server, starts its tick duty (docs/run-lifecycle.md §11.7). */
export async function buildSchedules(
  options: RuntimeOptions,
  { db, log, secrets }: Stores,
  { surface }: Builtins,
  { duties }: Membership,
  { dispatcher, cluster }: Dispatch,
): Promise<ScheduleService> {
  const store = new ScheduleStore(db);
  if (duties === "server")
    await cluster.start(
      scheduleTicks({ store, run: (req) => dispatcher.runDetailed(req), log }, options.scheduleTickMs ?? 1000),
    );
  return new ScheduleService(store, (tool) => surface.resolve(tool), secrets);
}
