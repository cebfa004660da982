import type { Db } from "../db/client.ts";
import { EVENT_WRITERS_SQL, isPostgres } from "../db/event-log.ts";
import type { LogWriter } from "../runlog/log-writer.ts";
import { startEventType, type RunReplay } from "../runlog/jobs.ts";
import type { Scrubber } from "../secrets/secrets.ts";
import { scopeKey, storableText } from "../db/storable.ts";
import type { Tier } from "../auth/roles.ts";
import type { RunScope } from "../auth/visibility.ts";
import type { ErrorKind } from "../errors.ts";
import type { AppliedPolicy } from "../retry/applied-policy.ts";
import type { AttemptRecord, Door, RunEventRecord, RunEventType, RunRecord, RunStatus } from "./run-record.ts";
import type { RunProgress } from "../tools/tool-update.ts";

type RunRow = Awaited<ReturnType<Db["run"]["findUniqueOrThrow"]>> & { attempts?: AttemptRow[] };
type AttemptRow = Awaited<ReturnType<Db["attempt"]["findUniqueOrThrow"]>>;

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** A run's stored dispatch options and owner (`RunTransitions.replayOf` reads the same). */
export interface StoredOptions {
  idempotencyKey: string | null;
  timeoutSeconds: number | null;
  replayable: boolean;
  redrives: number;
  instanceId: string;
  /** A synchronous dispatch's run QUEUED while it waits for its slots in its own request: no queue worker takes it. */
  syncWait: boolean;
}

/** Which runs a list wants; every given field must match. */
export interface RunFilter {
  tool?: string;
  status?: RunStatus;
  door?: Door;
  /** The runs a run started (`ctx.runTool`, an agent's tool calls, extensions). */
  parentRunId?: string;
  /** Runs started strictly after this instant. */
  startedAfter?: Date;
  /** Runs started strictly before this instant. */
  startedBefore?: Date;
}

/** A persisted-state view of runs: every write of the run lifecycle, in one place. */
export class RunStore {
  constructor(
    private readonly db: Db,
    private readonly log: LogWriter,
  ) {}

  /** How long the oldest run-log write not yet committed has waited, in ms (admission control's database wait). */
  stalledMs(): number {
    return this.log.stalledMs();
  }

  /**
   * Inserts a run and its first event (RUN_STARTED; RUN_QUEUED for a QUEUED run) in one transaction. Returns null
   * when the idempotency scope is already taken (the caller then waits for the first run).
   */
  async start(
    run: RunRecord,
    scope: string | null,
    instanceId: string,
    replay?: RunReplay,
  ): Promise<RunEventRecord | null> {
    const seq = await this.log.write({
      kind: "start",
      run,
      scope: scope === null ? null : scopeKey(scope),
      instanceId,
      at: run.startedAt,
      ...(replay ? { replay } : {}),
    });
    const type = startEventType(run);
    return seq === null ? null : { seq, type, at: run.startedAt, runId: run.id, tool: run.tool, run };
  }

  /**
   * Takes the QUEUED run `run` for `instanceId` (QUEUED → RUNNING, RUN_STARTED with `run` as its snapshot), a job of
   * the run log's group commit: a compare-and-set, so exactly one claimant wins across instances; null (nothing
   * written) for the others, and when the run was no longer QUEUED (docs/run-lifecycle.md §11.2).
   */
  async claim(run: RunRecord, instanceId: string): Promise<RunEventRecord | null> {
    const at = new Date().toISOString();
    const seq = await this.log.write({ kind: "claim", run, instanceId, at });
    return seq === null ? null : { seq, type: "RUN_STARTED", at, runId: run.id, tool: run.tool, run };
  }

  /**
   * Records a failed attempt that will be retried, with its ATTEMPT_FAILED event; null
   * (nothing written) when the run is no longer RUNNING: another instance ended it, and
   * the caller must stop it (fencing, docs/run-lifecycle.md §8).
   */
  async attemptFailed(run: RunRecord, attempt: AttemptRecord): Promise<RunEventRecord | null> {
    const at = attempt.finishedAt ?? new Date().toISOString();
    const seq = await this.log.write({ kind: "attempt", run, attempt, at });
    return seq === null ? null : { seq, type: "ATTEMPT_FAILED", at, runId: run.id, tool: run.tool, run };
  }

  /**
   * Records a body's update as a RUN_PROGRESS event; null (nothing written) when the run
   * is no longer RUNNING (it ended here or elsewhere: the update came too late).
   */
  async progress(run: RunRecord, progress: RunProgress): Promise<RunEventRecord | null> {
    const at = new Date().toISOString();
    const seq = await this.log.write({ kind: "progress", run, progress, at });
    return seq === null ? null : { seq, type: "RUN_PROGRESS", at, runId: run.id, tool: run.tool, run, progress };
  }

  /**
   * Stores the outcome, the last attempt (if any) and the closing event in one
   * transaction, if the run is still RUNNING. A run that already ended elsewhere (failed
   * as interrupted because this instance looked gone, or ended while parked) keeps that
   * first outcome: its last stored event is returned instead and nothing is written.
   */
  async finish(
    run: RunRecord,
    lastAttempt: AttemptRecord | null,
    type: RunEventType = "RUN_FINISHED",
    rescrub?: Scrubber,
  ): Promise<RunEventRecord> {
    const at = run.finishedAt ?? new Date().toISOString();
    const seq = await this.log.write({
      kind: "finish",
      run,
      attempt: lastAttempt,
      type,
      at,
      ...(rescrub ? { rescrub } : {}),
    });
    if (seq !== null) return { seq, type, at, runId: run.id, tool: run.tool, run };
    const last = await this.db.runEvent.findFirst({ where: { runId: run.id }, orderBy: { seq: "desc" } });
    if (!last) throw new Error(`run ${run.id} is not stored`);
    return toEvent(last);
  }

  /**
   * Rewrites what run `runId` stored so far scrubbed with `scrubber` (its scope, after a
   * late `ctx.redact`; `runlog/rescrub.ts`), ordered with the run's other writes. Resolves
   * with how many rows changed.
   */
  async rescrub(runId: string, scrubber: Scrubber): Promise<number> {
    return (await this.log.write({ kind: "rescrub", runId, scrubber })) ?? 0;
  }

  /**
   * Takes a PARKED run for resumption (PARKED → RUNNING on this instance). Only one
   * claimant wins; the others get false.
   */
  async claimParked(id: string, instanceId: string): Promise<boolean> {
    const { count } = await this.db.run.updateMany({
      where: { id, status: "PARKED" },
      data: { status: "RUNNING", instanceId },
    });
    return count === 1;
  }

  /**
   * Stores a cancel request for run `id` while it is RUNNING (docs/run-lifecycle.md §4): its holder reads it after its
   * next heartbeat. False when the run is not RUNNING (ended, parked or queued meanwhile).
   */
  async requestCancel(id: string): Promise<boolean> {
    const { count } = await this.db.run.updateMany({
      where: { id, status: "RUNNING" },
      data: { cancelRequestedAt: new Date() },
    });
    return count === 1;
  }

  async get(id: string): Promise<RunRecord | null> {
    const row = await this.db.run.findUnique({ where: { id }, include: { attempts: { orderBy: { number: "asc" } } } });
    return row ? toRecord(row) : null;
  }

  /**
   * Run `id` with its stored dispatch options (docs/run-lifecycle.md §11.4), in one read: what a queued run's claim and
   * execution need. Null when it is not stored.
   */
  async withReplay(id: string): Promise<{ run: RunRecord; replay: StoredOptions } | null> {
    const fast = (await this.log.readRun(id)) as RunRow | null | undefined;
    const row =
      fast === undefined
        ? await this.db.run.findUnique({ where: { id }, include: { attempts: { orderBy: { number: "asc" } } } })
        : fast;
    if (!row) return null;
    const { idempotencyKey, timeoutSeconds, replayable, redrives, instanceId, syncWait } = row;
    const replay = { idempotencyKey, timeoutSeconds, replayable, redrives, instanceId, syncWait };
    return { run: toRecord(row), replay };
  }

  async byScope(scope: string): Promise<RunRecord | null> {
    const row = await this.db.run.findUnique({
      where: { idempotencyScope: scopeKey(scope) },
      include: { attempts: { orderBy: { number: "asc" } } },
    });
    return row ? toRecord(row) : null;
  }

  /** Newest first, keyset-paginated on (startedAt, id), within `scope` (the caller's visible runs). */
  async list(
    filter: RunFilter,
    first: number,
    after?: { startedAt: Date; id: string },
    scope: RunScope = { all: true },
  ): Promise<RunRecord[]> {
    const where = {
      ...filterWhere(filter, scope),
      ...(after
        ? { OR: [{ startedAt: { lt: after.startedAt } }, { startedAt: after.startedAt, id: { lt: after.id } }] }
        : {}),
    };
    const rows = await this.db.run.findMany({
      where,
      orderBy: [{ startedAt: "desc" }, { id: "desc" }],
      take: first,
      include: { attempts: { orderBy: { number: "asc" } } },
    });
    return rows.map(toRecord);
  }

  /** How many runs within `scope` match `filter`. */
  count(filter: RunFilter, scope: RunScope = { all: true }): Promise<number> {
    return this.db.run.count({ where: filterWhere(filter, scope) });
  }

  /** Up to `take` runs started by the run `parentRunId`, oldest first, within `scope`. */
  async children(parentRunId: string, take: number, scope: RunScope = { all: true }): Promise<RunRecord[]> {
    const rows = await this.db.run.findMany({
      where: filterWhere({ parentRunId }, scope),
      orderBy: [{ startedAt: "asc" }, { id: "asc" }],
      take,
      include: { attempts: { orderBy: { number: "asc" } } },
    });
    return rows.map(toRecord);
  }

  /** Which of these run ids are runs within `scope`. */
  async visibleIds(ids: string[], scope: RunScope): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await this.db.run.findMany({ where: { id: { in: ids }, ...scopeWhere(scope) }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  }

  /**
   * Persisted events after `afterSeq` (and at most `upTo`: a replay stops at the feed's settled position,
   * docs/run-lifecycle.md §9), oldest first, of the runs within `scope`.
   */
  async events(
    filter: { runId?: string; tool?: string },
    afterSeq: number,
    limit = 10_000,
    scope: RunScope = { all: true },
    upTo?: number,
  ): Promise<RunEventRecord[]> {
    const rows = await this.db.runEvent.findMany({
      where: {
        seq: upTo === undefined ? { gt: afterSeq } : { gt: afterSeq, lte: upTo },
        ...(scope.all ? {} : { run: scopeWhere(scope) }),
        ...(filter.runId ? { runId: filter.runId } : {}),
        ...(filter.tool ? { tool: storableText(filter.tool) } : {}),
      },
      orderBy: { seq: "asc" },
      take: limit,
    });
    return rows.map(toEvent);
  }

  /** Every stored event with `after < seq ≤ upTo`, of all runs, oldest first (the ordered feed's gap reads). */
  async between(after: number, upTo: number, limit: number): Promise<RunEventRecord[]> {
    const rows = await this.db.runEvent.findMany({
      where: { seq: { gt: after, lte: upTo } },
      orderBy: { seq: "asc" },
      take: limit,
    });
    return rows.map(toEvent);
  }

  /**
   * The transactions registered as event-log writers right now (`db/event-log.ts`); none on SQLite, which has one
   * writer at a time.
   */
  async writers(): Promise<string[]> {
    if (!isPostgres(this.db)) return [];
    const rows = await this.db.$queryRawUnsafe<{ writer: string }[]>(EVENT_WRITERS_SQL);
    return rows.map((r) => r.writer);
  }

  /** The highest stored event seq (0 when the log is empty). */
  async lastSeq(): Promise<number> {
    return (await this.db.runEvent.findFirst({ orderBy: { seq: "desc" }, select: { seq: true } }))?.seq ?? 0;
  }
}

type EventRow = Awaited<ReturnType<Db["runEvent"]["findUniqueOrThrow"]>>;

export function toEvent(r: EventRow): RunEventRecord {
  const base = { seq: r.seq, type: r.type as RunEventType, at: r.at.toISOString(), runId: r.runId, tool: r.tool };
  // A progress event's snapshot holds its update beside the run (`runlog/rows.ts`).
  const { progress, ...run } = fromSnapshot(r.snapshot);
  return r.type === "RUN_PROGRESS" ? { ...base, run, progress } : { ...base, run };
}

/** A stored snapshot as a run; one stored before its policy was named `retryPolicy` holds it as `policy`. */
function fromSnapshot(snapshot: unknown): RunRecord & { progress?: RunProgress } {
  const { policy, ...run } = snapshot as RunRecord & { policy?: RunRecord["retryPolicy"]; progress?: RunProgress };
  return policy === undefined ? run : { ...run, retryPolicy: run.retryPolicy ?? policy };
}

/** The database form of a list's filter within a visibility scope. */
function filterWhere(filter: RunFilter, scope: RunScope) {
  const startedAt = {
    ...(filter.startedAfter ? { gt: filter.startedAfter } : {}),
    ...(filter.startedBefore ? { lt: filter.startedBefore } : {}),
  };
  return {
    ...scopeWhere(scope),
    ...(filter.tool ? { tool: storableText(filter.tool) } : {}),
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.door ? { door: filter.door } : {}),
    ...(filter.parentRunId ? { parentRunId: storableText(filter.parentRunId) } : {}),
    ...(Object.keys(startedAt).length ? { startedAt } : {}),
  };
}

/**
 * The database form of a visibility scope (the rule is `auth/visibility.ts`): the runs
 * of one key, or the anonymous ones (no key id and no key name), within the tiers.
 */
function scopeWhere(scope: RunScope) {
  if (scope.all) return {};
  const owner = scope.keyId === null ? { callerKeyId: null, callerKey: null } : { callerKeyId: scope.keyId };
  return { ...owner, tier: { in: [...scope.tiers] } };
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
    callerKeyId: row.callerKeyId,
    tier: (row.tier ?? null) as Tier | null,
    retryPolicy: (row.policy ?? null) as AppliedPolicy | null,
    startedAt: row.startedAt.toISOString(),
    finishedAt: iso(row.finishedAt),
  };
}
