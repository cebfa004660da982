import type { AgentRunScope } from "../auth/visibility.ts";
import type { Db } from "../db/client.ts";
import { isPostgres } from "../db/event-log.ts";
import { storableText } from "../db/storable.ts";
import type { LogWriter } from "../runlog/log-writer.ts";
import type { AgentLogEntry, AgentEventRecord } from "./events.ts";
import { NO_USAGE, type TokenUsage } from "./run-usage.ts";

export const AGENT_RUN_STATUSES = [
  "RUNNING",
  "SUCCEEDED",
  "INTERRUPTED",
  "SUSPENDED",
  "ASKED",
  "FAILED",
  "CANCELLED",
  "RESUMED",
] as const;
export type AgentRunStatus = (typeof AGENT_RUN_STATUSES)[number];

/** Statuses a later run on the same thread may resume. */
export const PAUSED: readonly AgentRunStatus[] = ["INTERRUPTED", "SUSPENDED", "ASKED"];

/** One agent run as stored. */
export interface AgentRunRecord {
  id: string;
  agent: string;
  threadId: string | null;
  status: AgentRunStatus;
  /** The options the run was started with (scrubbed of known secrets). */
  input: Record<string, unknown>;
  /** The terminal event, or the failure record. */
  final: AgentLogEntry | null;
  callerRole: string;
  callerKey: string | null;
  /** While RUNNING: `{ instanceId }`; once paused: what a resume needs. */
  checkpoint: unknown;
  startedAt: string;
  finishedAt: string | null;
  /** Tokens its model calls used, sub-agents included (the sum of its RunUsage events). */
  usage: TokenUsage;
}

/** Which agent runs a list wants; every given field must match. */
export interface AgentRunFilter {
  status?: AgentRunStatus;
  /** The agent's tool name, e.g. "tools_agent". */
  agent?: string;
}

/** The database form of a list's filter within a visibility scope (the rule is `auth/visibility.ts`). */
function filterWhere(filter: AgentRunFilter, scope: AgentRunScope) {
  return {
    ...(scope.all ? {} : { callerKey: scope.keyName }),
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.agent ? { agent: storableText(filter.agent) } : {}),
  };
}

type Row = Awaited<ReturnType<Db["agentRun"]["findUniqueOrThrow"]>>;
type Json = import("../db/generated/sqlite/internal/prismaNamespace.ts").InputJsonValue;

function toRecord(row: Row): AgentRunRecord {
  return {
    id: row.id,
    agent: row.agent,
    threadId: row.threadId,
    status: row.status as AgentRunStatus,
    input: row.input as Record<string, unknown>,
    final: (row.final as AgentLogEntry | null) ?? null,
    callerRole: row.callerRole,
    callerKey: row.callerKey,
    checkpoint: row.checkpoint ?? null,
    startedAt: row.startedAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
    usage: { inputTokens: row.inputTokens, outputTokens: row.outputTokens, totalTokens: row.totalTokens },
  };
}

/**
 * Agent runs and their event log. An event is stored before it is published, and a
 * terminal event is stored in the same transaction as the run's final status, so a
 * reader never sees a finished run without its terminal or the other way round.
 */
export class AgentRunStore {
  constructor(
    private readonly db: Db,
    private readonly log: LogWriter,
  ) {}

  async create(run: Omit<AgentRunRecord, "final" | "finishedAt" | "status" | "usage">): Promise<void> {
    await this.db.agentRun.create({
      data: {
        id: run.id,
        agent: run.agent,
        threadId: run.threadId,
        status: "RUNNING",
        input: run.input as Json,
        callerRole: run.callerRole,
        callerKey: run.callerKey,
        checkpoint: (run.checkpoint ?? undefined) as Json,
        startedAt: new Date(run.startedAt),
      },
    });
  }

  async get(id: string): Promise<AgentRunRecord | null> {
    const row = await this.db.agentRun.findUnique({ where: { id } });
    return row ? toRecord(row) : null;
  }

  /** Newest first, keyset-paginated on (startedAt, id), within `scope` (the caller's visible runs). */
  async list(
    filter: AgentRunFilter,
    first: number,
    after: { startedAt: Date; id: string } | undefined,
    scope: AgentRunScope,
  ): Promise<AgentRunRecord[]> {
    const rows = await this.db.agentRun.findMany({
      where: {
        ...filterWhere(filter, scope),
        ...(after
          ? { OR: [{ startedAt: { lt: after.startedAt } }, { startedAt: after.startedAt, id: { lt: after.id } }] }
          : {}),
      },
      orderBy: [{ startedAt: "desc" }, { id: "desc" }],
      take: first,
    });
    return rows.map(toRecord);
  }

  /** How many agent runs within `scope` match `filter`. */
  count(filter: AgentRunFilter, scope: AgentRunScope): Promise<number> {
    return this.db.agentRun.count({ where: filterWhere(filter, scope) });
  }

  /**
   * Stores one entry (group-committed with other writes of the run log, `runlog/log-writer.ts`); with `owner`, only
   * while the run is RUNNING on that instance (else it rejects: owner fencing, docs/agent-stream.md §4.3).
   */
  async appendEvent(event: AgentEventRecord, owner?: string): Promise<void> {
    await this.log.write({ kind: "agentEvent", runId: event.runId, type: event.type, payload: event, owner });
  }

  /**
   * Stores a RUNNING run's progress as its checkpoint's `progress`, ordered with its entries, only while the run is
   * RUNNING on `owner` (docs/agent-stream.md §4.3); false when it is not.
   */
  async progress(runId: string, owner: string, progress: unknown): Promise<boolean> {
    return (await this.log.write({ kind: "agentCheckpoint", runId, owner, progress })) !== null;
  }

  /**
   * Claims a RUNNING run whose owner `run` was read with is gone, for `instanceId`: compare-and-set on its checkpoint's
   * owner, so of every instance sweeping at once exactly one wins (docs/agent-stream.md §4.3).
   */
  async claimOrphan(run: AgentRunRecord, instanceId: string): Promise<boolean> {
    const was = ((run.checkpoint ?? {}) as { instanceId?: string }).instanceId ?? null;
    const count = isPostgres(this.db)
      ? await this.db.$executeRawUnsafe(
          `UPDATE "AgentRun" SET "checkpoint"=jsonb_set("checkpoint",'{instanceId}',to_jsonb($1::text)) WHERE "id"=$2 AND "status"='RUNNING' AND "checkpoint"->>'instanceId' IS NOT DISTINCT FROM $3`,
          instanceId,
          run.id,
          was,
        )
      : await this.db.$executeRawUnsafe(
          `UPDATE "AgentRun" SET "checkpoint"=json_set("checkpoint",'$.instanceId',?) WHERE "id"=? AND "status"='RUNNING' AND json_extract("checkpoint",'$.instanceId') IS ?`,
          instanceId,
          run.id,
          was,
        );
    return count === 1;
  }

  /**
   * Stores the last entry (terminal or failure) and the run's end in one transaction, if
   * the run is still RUNNING; false when another instance had already ended it (fencing:
   * its first outcome stands, and nothing is stored).
   */
  async finish(
    entry: AgentLogEntry,
    status: AgentRunStatus,
    checkpoint: unknown,
    usage: TokenUsage = NO_USAGE,
    owner?: string,
  ): Promise<boolean> {
    return (
      (await this.log.write({
        kind: "agentFinish",
        owner,
        runId: entry.runId,
        type: entry.type,
        payload: entry,
        status,
        checkpoint,
        finishedAt: new Date().toISOString(),
        usage,
      })) !== null
    );
  }

  /** The run's log entries with `seq > afterSeq`, oldest first. */
  async events(runId: string, afterSeq: number): Promise<AgentLogEntry[]> {
    const rows = await this.db.agentEvent.findMany({ where: { runId }, orderBy: { seq: "asc" } });
    // Rows are inserted in a run's seq order; sorting keeps that true whatever a batch did.
    return rows
      .map((r) => r.payload as unknown as AgentLogEntry)
      .filter((e) => e.seq > afterSeq)
      .sort((a, b) => a.seq - b.seq);
  }

  /** The newest run on a thread. */
  async latestOnThread(threadId: string): Promise<AgentRunRecord | null> {
    const row = await this.db.agentRun.findFirst({
      where: { threadId },
      orderBy: [{ startedAt: "desc" }, { id: "desc" }],
    });
    return row ? toRecord(row) : null;
  }

  /** The oldest run on a thread: its caller owns the thread. */
  async firstOnThread(threadId: string): Promise<AgentRunRecord | null> {
    const row = await this.db.agentRun.findFirst({
      where: { threadId },
      orderBy: [{ startedAt: "asc" }, { id: "asc" }],
    });
    return row ? toRecord(row) : null;
  }

  async runningOnThread(threadId: string): Promise<AgentRunRecord | null> {
    const row = await this.db.agentRun.findFirst({ where: { threadId, status: "RUNNING" } });
    return row ? toRecord(row) : null;
  }

  /**
   * Another run that makes `runId` (just created on `threadId`) a second runner of the
   * thread: one still RUNNING, or, for a resume of `resumes`, any run started after the
   * paused one (the thread moved on; its checkpoint is stale). Checked after the create,
   * so of two racing starts at least one sees the other (docs/agent-stream.md §3.1, §6).
   */
  async rivalOnThread(threadId: string, runId: string, resumes: AgentRunRecord | null): Promise<AgentRunRecord | null> {
    const row = await this.db.agentRun.findFirst({
      where: {
        threadId,
        id: { notIn: [runId, ...(resumes ? [resumes.id] : [])] },
        OR: [{ status: "RUNNING" }, ...(resumes ? [{ startedAt: { gte: new Date(resumes.startedAt) } }] : [])],
      },
    });
    return row ? toRecord(row) : null;
  }

  /** Deletes a run that lost a race before it ran (it has no events). */
  async discard(runId: string): Promise<void> {
    await this.db.agentRun.deleteMany({ where: { id: runId, status: "RUNNING" } });
  }

  /**
   * Stores a cancel request for agent run `id` while it is RUNNING (docs/agent-stream.md §4.1): the instance running it
   * reads it after its next heartbeat. False when the run is not RUNNING.
   */
  async requestCancel(runId: string): Promise<boolean> {
    const { count } = await this.db.agentRun.updateMany({
      where: { id: runId, status: "RUNNING" },
      data: { cancelRequestedAt: new Date() },
    });
    return count === 1;
  }

  /** Atomically marks a paused run RESUMED; false when another resume won (or it is not paused). */
  async claim(runId: string): Promise<boolean> {
    const { count } = await this.db.agentRun.updateMany({
      where: { id: runId, status: { in: [...PAUSED] } },
      data: { status: "RESUMED" },
    });
    return count === 1;
  }

  /** Undoes a claim whose resumed run could not be created. */
  async unclaim(runId: string, status: AgentRunStatus): Promise<void> {
    await this.db.agentRun.updateMany({ where: { id: runId, status: "RESUMED" }, data: { status } });
  }

  /**
   * Claims a SUSPENDED (or ASKED) run for its continuation on `instanceId` (→ RUNNING),
   * compare-and-set on the suspension `run` was read at (its status and end): of every
   * instance and explicit resume, exactly one claim of a suspension wins.
   */
  async claimSuspended(run: AgentRunRecord, instanceId: string): Promise<boolean> {
    const { count } = await this.db.agentRun.updateMany({
      where: { id: run.id, status: run.status, finishedAt: run.finishedAt ? new Date(run.finishedAt) : null },
      // A cancel asked before the run paused was answered by the pause (the run was returned unchanged).
      data: {
        status: "RUNNING",
        finishedAt: null,
        cancelRequestedAt: null,
        checkpoint: { ...(run.checkpoint as object), instanceId } as Json,
      },
    });
    return count === 1;
  }

  /** Gives a claimed suspension back, as it was (its continuation could not start). */
  async unclaimSuspended(run: AgentRunRecord): Promise<void> {
    await this.db.agentRun.updateMany({
      where: { id: run.id, status: "RUNNING" },
      data: {
        status: run.status,
        finishedAt: run.finishedAt ? new Date(run.finishedAt) : null,
        checkpoint: (run.checkpoint ?? undefined) as Json,
      },
    });
  }

  /** The SUSPENDED and ASKED runs (a sweep continues those whose answers are in). */
  async suspended(): Promise<AgentRunRecord[]> {
    const rows = await this.db.agentRun.findMany({ where: { status: { in: ["SUSPENDED", "ASKED"] } }, take: 500 });
    return rows.map(toRecord);
  }

  /** RUNNING runs whose instance is not in `live`: what a crash left behind. */
  async orphans(live: Set<string>): Promise<AgentRunRecord[]> {
    const rows = await this.db.agentRun.findMany({ where: { status: "RUNNING" } });
    return rows
      .map(toRecord)
      .filter((r) => !live.has(((r.checkpoint ?? {}) as { instanceId?: string }).instanceId ?? ""));
  }

  /** The highest seq a run has stored (0 when none). */
  async lastSeq(runId: string): Promise<number> {
    const last = await this.db.agentEvent.findFirst({ where: { runId }, orderBy: { seq: "desc" } });
    return last ? (last.payload as unknown as AgentLogEntry).seq : 0;
  }
}
