import type { Caller } from "../auth/roles.ts";
import type { Db } from "../db/client.ts";
import { isUniqueViolation } from "../db/client.ts";
import { ApiError } from "../errors.ts";
import type { ScheduleRecord } from "./schedule-record.ts";
import { tickCaller, type KeyGone } from "./schedule-caller.ts";

type Row = Awaited<ReturnType<Db["schedule"]["findUniqueOrThrow"]>>;

function toRecord(row: Row): ScheduleRecord {
  return {
    name: row.name,
    tool: row.tool,
    input: row.input as Record<string, unknown>,
    cron: row.cron,
    timeZone: row.timeZone,
    enabled: row.enabled,
    version: row.version,
    callerRole: row.callerRole,
    callerKey: row.callerKey,
    callerKeyId: row.callerKeyId,
    nextTickAt: row.nextTickAt?.toISOString() ?? null,
    lastTickAt: row.lastTickAt?.toISOString() ?? null,
    lastRunId: row.lastRunId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** What a put writes. */
export interface ScheduleWrite {
  name: string;
  tool: string;
  input: Record<string, unknown>;
  cron: string;
  timeZone: string;
  enabled: boolean;
  caller: Caller;
  nextTickAt: Date | null;
}

/** Prisma reads and writes of `Schedule`. */
export class ScheduleStore {
  constructor(private readonly db: Db) {}

  async all(): Promise<ScheduleRecord[]> {
    return (await this.db.schedule.findMany({ orderBy: { name: "asc" } })).map(toRecord);
  }

  async get(name: string): Promise<ScheduleRecord | null> {
    const row = await this.db.schedule.findUnique({ where: { name } });
    return row ? toRecord(row) : null;
  }

  /** Creates (`expectedVersion` 0) or replaces (the stored version): CONFLICT if taken or stale, NOT_FOUND if gone. */
  async put(write: ScheduleWrite, expectedVersion: number): Promise<ScheduleRecord> {
    const data = {
      tool: write.tool,
      input: write.input as never,
      cron: write.cron,
      timeZone: write.timeZone,
      enabled: write.enabled,
      callerRole: write.caller.role,
      callerKey: write.caller.keyName,
      callerKeyId: write.caller.keyId,
      nextTickAt: write.nextTickAt,
    };
    if (expectedVersion === 0) {
      try {
        return toRecord(await this.db.schedule.create({ data: { name: write.name, ...data } }));
      } catch (e) {
        if (isUniqueViolation(e))
          throw new ApiError("CONFLICT", `a schedule named "${write.name}" exists; pass its version to replace it`);
        throw e;
      }
    }
    const { count } = await this.db.schedule.updateMany({
      where: { name: write.name, version: expectedVersion },
      data: { ...data, version: { increment: 1 } },
    });
    if (count === 0) {
      const current = await this.get(write.name);
      if (!current) throw new ApiError("NOT_FOUND", `no schedule named "${write.name}"`);
      throw new ApiError(
        "CONFLICT",
        `schedule "${write.name}" is at version ${current.version}, not ${expectedVersion}: read it again`,
      );
    }
    return (await this.get(write.name))!;
  }

  async delete(name: string): Promise<void> {
    const { count } = await this.db.schedule.deleteMany({ where: { name } });
    if (count === 0) throw new ApiError("NOT_FOUND", `no schedule named "${name}"`);
  }

  /** Enabled schedules whose next tick is due at `now`. */
  async due(now: Date): Promise<ScheduleRecord[]> {
    const rows = await this.db.schedule.findMany({ where: { enabled: true, nextTickAt: { lte: now } } });
    return rows.map(toRecord);
  }

  /**
   * Moves the next tick from `from` to `to`, only if it is still `from` and the schedule still at `version` (a put in
   * between wins: the old input and caller never fire): true for the one instance that won.
   */
  async advance(name: string, version: number, from: Date, to: Date | null): Promise<boolean> {
    const { count } = await this.db.schedule.updateMany({
      where: { name, version, nextTickAt: from },
      data: { nextTickAt: to },
    });
    return count === 1;
  }

  /**
   * Puts the next tick back from `advanced` to `tick` after its fire failed (docs/run-lifecycle.md §11.7), only if no
   * one moved it since: another instance, or the next pass, fires it (its idempotency key keeps it one run).
   */
  async putBack(name: string, version: number, advanced: Date | null, tick: Date): Promise<boolean> {
    const { count } = await this.db.schedule.updateMany({
      where: { name, version, nextTickAt: advanced },
      data: { nextTickAt: tick },
    });
    return count === 1;
  }

  /** The caller a tick of `s` runs as now, or why it has none (its key is revoked or deleted). */
  callerOf(s: ScheduleRecord): Promise<Caller | KeyGone> {
    return tickCaller(this.db, s);
  }

  /** Records the tick fired and its run (a replaced or deleted schedule is left as it is). */
  async fired(name: string, version: number, tick: Date, runId: string): Promise<void> {
    await this.db.schedule.updateMany({ where: { name, version }, data: { lastTickAt: tick, lastRunId: runId } });
  }
}
