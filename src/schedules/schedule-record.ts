import { Cron } from "croner";
import type { Issue } from "../errors.ts";

/** A stored schedule as the API serves it (docs/run-lifecycle.md §11.7). Times are ISO strings. */
export interface ScheduleRecord {
  name: string;
  tool: string;
  input: Record<string, unknown>;
  cron: string;
  timeZone: string;
  enabled: boolean;
  version: number;
  /** The caller its runs are dispatched as: the ADMIN who last wrote it. */
  callerRole: string;
  callerKey: string | null;
  callerKeyId: string | null;
  /** The next tick it fires; null when disabled. */
  nextTickAt: string | null;
  lastTickAt: string | null;
  lastRunId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What an ADMIN writes. */
export interface ScheduleInput {
  name: string;
  tool: string;
  input?: Record<string, unknown>;
  cron: string;
  /** IANA time zone; "UTC" when omitted. */
  timeZone?: string;
  /** true when omitted. */
  enabled?: boolean;
}

/** A paused croner job for `cron` in `timeZone` (it never runs a timer: only its dates are read). */
export function cronOf(cron: string, timeZone: string): Cron {
  return new Cron(cron, { timezone: timeZone, paused: true });
}

/** The first tick of `cron` in `timeZone` strictly after `after`; null when it has none. */
export function nextTick(cron: string, timeZone: string, after: Date): Date | null {
  return cronOf(cron, timeZone).nextRun(after);
}

/** The next `count` ticks of `cron` in `timeZone` strictly after `after` (fewer when it has fewer). */
export function nextTicks(cron: string, timeZone: string, after: Date, count: number): Date[] {
  return cronOf(cron, timeZone).nextRuns(count, after);
}

/** The latest tick at or before `now` (the one a late instance fires: missed ones are not replayed). */
export function latestTick(cron: string, timeZone: string, now: Date): Date | null {
  return cronOf(cron, timeZone).previousRuns(1, new Date(now.getTime() + 1))[0] ?? null;
}

/** Issues of the cron expression and time zone (croner's own words for a bad cron). */
export function cronIssues(cron: string, timeZone: string): Issue[] {
  const issues: Issue[] = [];
  let zoneOk = true;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
  } catch {
    zoneOk = false;
    issues.push({
      path: "/timeZone",
      message: `unknown time zone "${timeZone}" (an IANA name such as "Europe/Paris")`,
    });
  }
  try {
    const job = cronOf(cron, zoneOk ? timeZone : "UTC");
    if (!job.nextRun()) issues.push({ path: "/cron", message: "never fires" });
  } catch (e) {
    issues.push({ path: "/cron", message: e instanceof Error ? e.message : String(e) });
  }
  return issues;
}
