import type { Db } from "../db/client.ts";
import { isUniqueViolation } from "../db/client.ts";
import { scopeKey, storableJson, storableText, storableTextOrNull } from "../db/storable.ts";
import type { ErrorKind } from "../errors.ts";
import type { AppliedPolicy, AttemptRecord, Door, RunEventRecord, RunEventType, RunRecord, RunStatus } from "./run-record.ts";

type Json = import("../db/generated/sqlite/internal/prismaNamespace.ts").InputJsonValue;
type RunRow = Awaited<ReturnType<Db["run"]["findUniqueOrThrow"]>> & { attempts?: AttemptRow[] };
type AttemptRow = Awaited<ReturnType<Db["attempt"]["findUniqueOrThrow"]>>;

// Every JSON and caller-supplied text value is written in a form both databases store.
const json = (v: unknown) => (v === undefined ? undefined : (storableJson(v) as Json));
const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** A persisted-state view of runs: every write of the run lifecycle, in one place. */
export class RunStore {
  constructor(private readonly db: Db) {}

  /**
   * Inserts a run and its RUN_STARTED event in one transaction. Returns null when the
   * idempotency scope is already taken (the caller then waits for the first run).
   */
  async start(run: RunRecord, scope: string | null, instanceId: string): Promise<RunEventRecord | null> {
    try {
      const [, ev] = await this.db.$transaction([
        this.db.run.create({
          data: {
            id: run.id,
            tool: storableText(run.tool),
            status: run.status,
            input: json(run.input),
            content: json(run.content)!,
            door: run.door,
            callerRole: run.callerRole,
            callerKey: storableTextOrNull(run.callerKey),
            idempotencyScope: scope === null ? null : scopeKey(scope),
            parentRunId: run.parentRunId,
            instanceId,
            policy: json(run.policy ?? undefined),
            startedAt: new Date(run.startedAt),
          },
        }),
        this.db.runEvent.create({ data: { runId: run.id, tool: storableText(run.tool), type: "RUN_STARTED", snapshot: json(run)!, at: new Date(run.startedAt) } }),
      ]);
      return { seq: ev.seq, type: "RUN_STARTED", at: run.startedAt, runId: run.id, tool: run.tool, run };
    } catch (e) {
      if (scope && isUniqueViolation(e)) return null;
      throw e;
    }
  }

  /** Records a failed attempt that will be retried, with its ATTEMPT_FAILED event. */
  async attemptFailed(run: RunRecord, attempt: AttemptRecord): Promise<RunEventRecord> {
    const at = attempt.finishedAt ?? new Date().toISOString();
    const [, ev] = await this.db.$transaction([
      this.db.attempt.create({ data: attemptData(run.id, attempt) }),
      this.db.runEvent.create({ data: { runId: run.id, tool: storableText(run.tool), type: "ATTEMPT_FAILED", snapshot: json(run)!, at: new Date(at) } }),
    ]);
    return { seq: ev.seq, type: "ATTEMPT_FAILED", at, runId: run.id, tool: run.tool, run };
  }

  /** Stores the outcome, the last attempt (if any) and the closing event in one transaction. */
  async finish(run: RunRecord, lastAttempt: AttemptRecord | null, type: RunEventType = "RUN_FINISHED"): Promise<RunEventRecord> {
    const at = run.finishedAt ?? new Date().toISOString();
    const ops = [
      this.db.run.update({
        where: { id: run.id },
        data: {
          status: run.status,
          content: json(run.content)!,
          data: json(run.data ?? undefined),
          details: json(run.details ?? undefined),
          isError: run.isError,
          errorKind: run.errorKind,
          errorMessage: storableTextOrNull(run.errorMessage),
          terminate: run.terminate,
          finishedAt: run.finishedAt ? new Date(run.finishedAt) : null,
        },
      }),
      ...(lastAttempt ? [this.db.attempt.create({ data: attemptData(run.id, lastAttempt) })] : []),
      this.db.runEvent.create({ data: { runId: run.id, tool: storableText(run.tool), type, snapshot: json(run)!, at: new Date(at) } }),
    ];
    const results = await this.db.$transaction(ops as never);
    const ev = (results as { seq: number }[])[ops.length - 1];
    return { seq: ev.seq, type, at, runId: run.id, tool: run.tool, run };
  }

  /**
   * Takes a PARKED run for resumption (PARKED → RUNNING on this instance). Only one
   * claimant wins; the others get false.
   */
  async claimParked(id: string, instanceId: string): Promise<boolean> {
    const { count } = await this.db.run.updateMany({ where: { id, status: "PARKED" }, data: { status: "RUNNING", instanceId } });
    return count === 1;
  }

  async get(id: string): Promise<RunRecord | null> {
    const row = await this.db.run.findUnique({ where: { id }, include: { attempts: { orderBy: { number: "asc" } } } });
    return row ? toRecord(row) : null;
  }

  async byScope(scope: string): Promise<RunRecord | null> {
    const row = await this.db.run.findUnique({ where: { idempotencyScope: scopeKey(scope) }, include: { attempts: { orderBy: { number: "asc" } } } });
    return row ? toRecord(row) : null;
  }

  /** Newest first, keyset-paginated on (startedAt, id). */
  async list(filter: { tool?: string; status?: RunStatus }, first: number, after?: { startedAt: Date; id: string }): Promise<RunRecord[]> {
    const where = {
      ...(filter.tool ? { tool: storableText(filter.tool) } : {}),
      ...(filter.status ? { status: filter.status } : {}),
      ...(after ? { OR: [{ startedAt: { lt: after.startedAt } }, { startedAt: after.startedAt, id: { lt: after.id } }] } : {}),
    };
    const rows = await this.db.run.findMany({
      where,
      orderBy: [{ startedAt: "desc" }, { id: "desc" }],
      take: first,
      include: { attempts: { orderBy: { number: "asc" } } },
    });
    return rows.map(toRecord);
  }

  /** Persisted events after `afterSeq`, oldest first. */
  async events(filter: { runId?: string; tool?: string }, afterSeq: number, limit = 10_000): Promise<RunEventRecord[]> {
    const rows = await this.db.runEvent.findMany({
      where: { seq: { gt: afterSeq }, ...(filter.runId ? { runId: filter.runId } : {}), ...(filter.tool ? { tool: storableText(filter.tool) } : {}) },
      orderBy: { seq: "asc" },
      take: limit,
    });
    return rows.map((r) => ({ seq: r.seq, type: r.type as RunEventType, at: r.at.toISOString(), runId: r.runId, tool: r.tool, run: r.snapshot as unknown as RunRecord }));
  }

  /**
   * Fails runs left RUNNING by instances that stopped beating (or by this instance's
   * previous life); returns their ids.
   */
  async failInterrupted(liveInstanceIds: string[]): Promise<string[]> {
    const stale = await this.db.run.findMany({ where: { status: "RUNNING", instanceId: { notIn: liveInstanceIds } }, select: { id: true } });
    const ids = stale.map((r) => r.id);
    const now = new Date();
    for (const id of ids) {
      const run = await this.get(id);
      if (!run) continue;
      const done: RunRecord = { ...run, status: "FAILED", isError: true, errorKind: "INTERNAL", errorMessage: "interrupted by restart", finishedAt: now.toISOString() };
      await this.db.$transaction([
        this.db.run.updateMany({ where: { id, status: "RUNNING" }, data: { status: "FAILED", isError: true, errorKind: "INTERNAL", errorMessage: "interrupted by restart", finishedAt: now } }),
        this.db.runEvent.create({ data: { runId: id, tool: run.tool, type: "RUN_FINISHED", snapshot: json(done)!, at: now } }),
      ]);
    }
    return ids;
  }
}

function attemptData(runId: string, a: AttemptRecord) {
  return {
    runId,
    number: a.number,
    startedAt: new Date(a.startedAt),
    finishedAt: a.finishedAt ? new Date(a.finishedAt) : null,
    errorKind: a.errorKind,
    errorMessage: storableTextOrNull(a.errorMessage),
    waitSeconds: a.waitSeconds,
  };
}

function toRecord(row: RunRow): RunRecord {
  return {
    id: row.id,
    tool: row.tool,
    status: row.status as RunStatus,
    input: row.input ?? null,
    content: (row.content ?? []) as unknown as RunRecord["content"],
    data: row.data ?? null,
    details: row.details ?? null,
    isError: row.isError,
    errorKind: row.errorKind as ErrorKind | null,
    errorMessage: row.errorMessage,
    terminate: row.terminate,
    attempts: (row.attempts ?? []).map((a) => ({
      number: a.number,
      startedAt: a.startedAt.toISOString(),
      finishedAt: iso(a.finishedAt),
      errorKind: a.errorKind as ErrorKind | null,
      errorMessage: a.errorMessage,
      waitSeconds: a.waitSeconds,
    })),
    parentRunId: row.parentRunId,
    door: row.door as Door,
    callerRole: row.callerRole,
    callerKey: row.callerKey,
    policy: (row.policy ?? null) as AppliedPolicy | null,
    startedAt: row.startedAt.toISOString(),
    finishedAt: iso(row.finishedAt),
  };
}
