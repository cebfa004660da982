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

/** The zone's offset from UTC at `at`, in minutes (+60 for CET). */
function offsetAt(timeZone: string, at: Date): number {
  const name = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" })
    .formatToParts(at)
    .find((p) => p.type === "timeZoneName")!.value;
  const m = /GMT([+-])(\d\d):(\d\d)/.exec(name);
  return m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

/** Whether the hour field is one hour (a fixed-time schedule: it fires once in a repeated hour). */
function fixedHour(cron: string): boolean {
  const fields = cron.trim().split(/\s+/);
  if (fields.length === 1) return !/^@hourly$/i.test(fields[0]!);
  return /^\d+$/.test(fields[fields.length === 6 ? 2 : 1] ?? "");
}

/**
 * The zone's own answer, and for an interval schedule the answers in the fixed offsets the zone has at `at` and at
 * that answer, each kept only when the zone really has that offset then (docs/run-lifecycle.md §11.7: an interval
 * keeps its interval through a repeated hour; croner skips it).
 */
function candidates(cron: string, timeZone: string, at: Date, ask: (c: Cron) => Date | null): Date[] {
  const zoned = ask(cronOf(cron, timeZone));
  if (fixedHour(cron)) return zoned ? [zoned] : [];
  const offsets = new Set([offsetAt(timeZone, at), ...(zoned ? [offsetAt(timeZone, zoned)] : [])]);
  const fixed = [...offsets].map((o) => {
    const d = ask(new Cron(cron, { utcOffset: o, paused: true }));
    return d && offsetAt(timeZone, d) === o ? d : null;
  });
  return [zoned, ...fixed].filter((d): d is Date => d !== null);
}

/** The first tick of `cron` in `timeZone` strictly after `after`; null when it has none. */
export function nextTick(cron: string, timeZone: string, after: Date): Date | null {
  // Strictly after, checked: croner with a fixed offset can answer an earlier instant.
  const all = candidates(cron, timeZone, after, (c) => c.nextRun(after)).filter((d) => d > after);
  return all.length ? new Date(Math.min(...all.map((d) => d.getTime()))) : null;
}

/** The next `count` ticks of `cron` in `timeZone` strictly after `after` (fewer when it has fewer). */
export function nextTicks(cron: string, timeZone: string, after: Date, count: number): Date[] {
  return cronOf(cron, timeZone).nextRuns(count, after);
}

/** The latest tick at or before `now` (the one a late instance fires: missed ones are not replayed). */
export function latestTick(cron: string, timeZone: string, now: Date): Date | null {
  const end = new Date(now.getTime() + 1);
  const all = candidates(cron, timeZone, now, (c) => c.previousRuns(1, end)[0] ?? null).filter((d) => d < end);
  return all.length ? new Date(Math.max(...all.map((d) => d.getTime()))) : null;
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
  const fields = cron.trim().split(/\s+/).length;
  if (fields !== 5 && fields !== 6 && !cron.trim().startsWith("@"))
    issues.push({
      path: "/cron",
      message: `has ${fields} fields: 5, or 6 with seconds first (or a nickname: @hourly)`,
    });
  else
    try {
      const job = cronOf(cron, zoneOk ? timeZone : "UTC");
      if (!job.nextRun()) issues.push({ path: "/cron", message: "never fires" });
    } catch (e) {
      issues.push({ path: "/cron", message: e instanceof Error ? e.message : String(e) });
    }
  return issues;
}
