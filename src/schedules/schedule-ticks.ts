import type { Caller, Role } from "../auth/roles.ts";
import type { Duty } from "../cluster/duty.ts";
import type { RunOutcome, RunRequest } from "../dispatch/request.ts";
import type { Logger } from "../log.ts";
import { latestTick, nextTick, type ScheduleRecord } from "./schedule-record.ts";
import type { ScheduleStore } from "./schedule-store.ts";

/** What firing needs: the store and the chokepoint. */
export interface TickDeps {
  store: ScheduleStore;
  run: (req: RunRequest) => Promise<RunOutcome>;
  log: Logger;
  /** Told each tick this instance fired, once its run exists (tests, metrics). */
  onFired?: (schedule: string, tick: Date, runId: string) => void;
}

/** The idempotency key of one tick: a tick dispatched twice is one run. */
export function tickKey(name: string, tick: Date): string {
  return `schedule:${name}:${tick.toISOString()}`;
}

/** Whoever stored the schedule, as the run's caller. */
function callerOf(s: ScheduleRecord): Caller {
  return { role: s.callerRole as Role, keyName: s.callerKey, keyId: s.callerKeyId };
}

/**
 * Fires one tick: a background dispatch through the runtime door as the schedule's stored caller, keyed by the tick.
 * Resolves once the run exists (its id is recorded as the schedule's last run).
 */
export async function fireTick(deps: TickDeps, s: ScheduleRecord, tick: Date): Promise<void> {
  let runId: string | undefined;
  const dispatched = deps.run({
    tool: s.tool,
    input: s.input,
    caller: callerOf(s),
    door: "runtime",
    idempotencyKey: tickKey(s.name, tick),
    background: true,
    onRun: (id) => (runId = id),
  });
  const outcome = await dispatched;
  runId ??= outcome.run.id;
  await deps.store.fired(s.name, tick, runId);
  deps.onFired?.(s.name, tick, runId);
}

/**
 * One pass: each due schedule's next tick is advanced past now by compare-and-set on the stored value, and only the
 * instance whose write won fires it. A schedule left due for several ticks (every instance was down) fires only its
 * latest missed tick.
 */
export async function tickOnce(deps: TickDeps, now = new Date()): Promise<void> {
  const firing: Promise<void>[] = [];
  for (const s of await deps.store.due(now)) {
    const stored = new Date(s.nextTickAt!);
    const tick = latestTick(s.cron, s.timeZone, now) ?? stored;
    const next = nextTick(s.cron, s.timeZone, now);
    if (!(await deps.store.advance(s.name, stored, next))) continue;
    // Fired side by side: one schedule's slow dispatch does not hold back another's tick.
    firing.push(
      fireTick(deps, s, tick < stored ? stored : tick).catch((e: unknown) =>
        deps.log.warn("schedule tick failed", { schedule: s.name, err: e instanceof Error ? e.message : String(e) }),
      ),
    );
  }
  await Promise.all(firing);
}

/** The duty every server instance runs: a pass every `everyMs` (one pass at a time). */
export function scheduleTicks(deps: TickDeps, everyMs = 1000): Duty {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const pass = () => {
    if (running) return;
    running = tickOnce(deps)
      .catch((e: unknown) => deps.log.warn("schedule pass failed", { err: e instanceof Error ? e.message : String(e) }))
      .finally(() => (running = undefined));
  };
  return {
    name: "schedule ticks",
    start() {
      timer = setInterval(pass, everyMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
