import type { Duty } from "../cluster/duty.ts";
import type { RunOutcome, RunRequest } from "../dispatch/request.ts";
import { failureLog, type FailureLog } from "../failure-log.ts";
import type { Logger } from "../log.ts";
import { latestTick, nextTick, type ScheduleRecord } from "./schedule-record.ts";
import type { ScheduleStore } from "./schedule-store.ts";

/** What firing needs: the store and the chokepoint. */
export interface TickDeps {
  store: ScheduleStore;
  run: (req: RunRequest) => Promise<RunOutcome>;
  log: Logger;
  /** Where a tick skipped for a revoked or deleted key is logged, once per episode (src/failure-log.ts). */
  failures?: FailureLog;
  /** Told each tick this instance fired, once its run exists (tests, metrics). */
  onFired?: (schedule: string, tick: Date, runId: string) => void;
}

/** The idempotency key of one tick: a tick dispatched twice is one run. */
export function tickKey(name: string, tick: Date): string {
  return `schedule:${name}:${tick.toISOString()}`;
}

/** A fire that did not happen because the instance or the database refused it: the tick is put back. */
function refused(outcome: RunOutcome): boolean {
  return outcome.run.status === "FAILED" && outcome.run.errorKind === "UNAVAILABLE";
}

/**
 * Fires one tick: a background dispatch through the runtime door as the schedule's caller (read again now:
 * docs/run-lifecycle.md §11.7), keyed by the tick. Resolves once the run exists (its id is recorded as the schedule's
 * last run): true when it fired, false when its key is revoked or deleted (no run; logged once per episode). Throws
 * when the dispatch throws or is refused UNAVAILABLE (shutdown, a database refusing writes).
 */
export async function fireTick(deps: TickDeps, s: ScheduleRecord, tick: Date): Promise<boolean> {
  const caller = await deps.store.callerOf(s);
  if ("gone" in caller) {
    deps.failures?.failed(
      "warn",
      "schedule tick skipped: its key is gone",
      { schedule: s.name, key: caller.keyName, why: caller.gone },
      `schedule key gone: ${s.name}`,
    );
    return false;
  }
  let runId: string | undefined;
  const outcome = await deps.run({
    tool: s.tool,
    input: s.input,
    caller,
    door: "runtime",
    idempotencyKey: tickKey(s.name, tick),
    background: true,
    onRun: (id) => (runId = id),
  });
  if (refused(outcome)) throw new Error(outcome.run.errorMessage ?? "the dispatch was refused UNAVAILABLE");
  runId ??= outcome.run.id;
  await deps.store.fired(s.name, s.version, tick, runId);
  deps.onFired?.(s.name, tick, runId);
  return true;
}

/** Fires `tick` of `s`, advanced to `next`; a failed fire puts the next tick back so it is fired again. */
async function fireOrPutBack(deps: TickDeps, s: ScheduleRecord, tick: Date, next: Date | null): Promise<void> {
  try {
    await fireTick(deps, s, tick);
  } catch (e) {
    const back = await deps.store.putBack(s.name, s.version, next, tick).catch(() => false);
    deps.log.warn("schedule tick failed", {
      schedule: s.name,
      tick: tick.toISOString(),
      putBack: back,
      err: e instanceof Error ? e.message : String(e),
    });
  }
}

/**
 * One pass: each due schedule's next tick is advanced past now by compare-and-set on the stored value and version, and
 * only the instance whose write won fires it. A schedule left due for several ticks (every instance was down) fires
 * only its latest missed tick.
 */
export async function tickOnce(deps: TickDeps, now = new Date()): Promise<void> {
  const firing: Promise<void>[] = [];
  for (const s of await deps.store.due(now)) {
    const stored = new Date(s.nextTickAt!);
    const latest = latestTick(s.cron, s.timeZone, now) ?? stored;
    const next = nextTick(s.cron, s.timeZone, now);
    if (!(await deps.store.advance(s.name, s.version, stored, next))) continue;
    // Fired side by side: one schedule's slow dispatch does not hold back another's tick.
    firing.push(fireOrPutBack(deps, s, latest < stored ? stored : latest, next));
  }
  await Promise.all(firing);
}

/** The duty every server instance runs: a pass every `everyMs` (one pass at a time). */
export function scheduleTicks(deps: TickDeps, everyMs = 1000): Duty {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  // A database outage fails every pass alike: one line per 10 s counting them, not one a second.
  const failures = failureLog(deps.log);
  const pass = () => {
    if (running) return;
    running = tickOnce(deps)
      .catch((e: unknown) =>
        failures.failed("warn", "schedule pass failed", { err: e instanceof Error ? e.message : String(e) }),
      )
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
