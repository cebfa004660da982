import type { Db } from "../db/client.ts";
import { TX } from "../db/contention.ts";
import { registerEventWriter } from "../db/event-log.ts";
import { storableJson } from "../db/storable.ts";
import type { AttemptRecord, RunEventRecord, RunEventType, RunRecord, RunStatus } from "./run-record.ts";
import { toEvent, type RunStore, type StoredOptions } from "./run-store.ts";

type Json = import("../db/generated/sqlite/internal/prismaNamespace.ts").InputJsonValue;
type RunUpdate = Parameters<Db["run"]["updateMany"]>[0]["data"];
const json = (v: unknown) => (v === undefined ? undefined : (storableJson(v) as Json));

/** What a run becomes in one transition: its record as served, its row's changes, an attempt to add. */
export interface Change {
  /** The event the transition writes. */
  type: RunEventType;
  record: RunRecord;
  data: RunUpdate;
  attempt?: AttemptRecord;
}

/** Which stored state a transition starts from: its status and, when given, its owner. */
export interface From {
  status: RunStatus;
  /** The owner it must have, or the owners it must not have (`notIn`). */
  instanceId?: string | { notIn: string[] };
  /** Whether it must be a synchronous dispatch's run waiting for its slots (QUEUED only). */
  syncWait?: boolean;
}

/** The stored dispatch options queued and re-driven runs execute with (docs/run-lifecycle.md §11.4). */
export type StoredReplay = StoredOptions;

/**
 * The run state changes that are not a step of an execution (a queued run's claim is a run-log job instead,
 * `RunStore.claim`): a re-drive, an interruption, a
 * hand-back, an operator's retry or settle, the cancel of a queued run. Each is one transaction: a compare-and-set of
 * the run's state (exactly one writer wins, across instances), its attempt if any, and its event, written after
 * registering as an event-log writer (docs/run-lifecycle.md §9). Writes go through Prisma, so its
 * scrubbing extension holds for them.
 */
export class RunTransitions {
  constructor(
    private readonly db: Db,
    readonly runs: RunStore,
  ) {}

  /**
   * Moves run `id` from `from` to what `change` makes of it, with its event; null (nothing written) when the run is
   * not in that state (another writer won, or it moved on), or `change` declines.
   */
  async move(id: string, from: From, change: (run: RunRecord) => Change | null): Promise<RunEventRecord | null> {
    const run = await this.runs.get(id);
    if (!run || run.status !== from.status) return null;
    const next = change(run);
    if (!next) return null;
    const now = new Date();
    const ev = await this.db.$transaction(async (tx) => {
      const { count } = await tx.run.updateMany({ where: { id, ...from }, data: next.data });
      if (count !== 1) return null;
      if (next.attempt) await tx.attempt.create({ data: attemptData(id, next.attempt) });
      await registerEventWriter(this.db, tx);
      const snapshot = json(next.record)!;
      return tx.runEvent.create({ data: { runId: id, tool: run.tool, type: next.type, snapshot, at: now } });
    }, TX);
    return ev ? toEvent(ev) : null;
  }

  /** The stored dispatch options of run `id` (queued and re-driven runs execute with them), or null. */
  async replayOf(id: string): Promise<StoredReplay | null> {
    return this.db.run.findUnique({
      where: { id },
      select: {
        idempotencyKey: true,
        timeoutSeconds: true,
        replayable: true,
        redrives: true,
        instanceId: true,
        syncWait: true,
      },
    });
  }

  /**
   * Up to `take` QUEUED runs queued before `before` (default: any), oldest first: those for the queue, not a
   * synchronous dispatch's waiting in its own request (docs/flow-control.md §3).
   */
  async queuedIds(take: number, before?: Date): Promise<string[]> {
    const rows = await this.db.run.findMany({
      where: { status: "QUEUED", syncWait: false, ...(before ? { startedAt: { lt: before } } : {}) },
      orderBy: [{ startedAt: "asc" }, { id: "asc" }],
      take,
      select: { id: true },
    });
    return rows.map((r) => r.id);
  }

  /** The RUNNING runs held by instances not in `liveIds`, with their stored dispatch options. */
  async orphans(liveIds: string[]): Promise<{ id: string; instanceId: string }[]> {
    return this.db.run.findMany({
      where: { status: "RUNNING", instanceId: { notIn: liveIds } },
      select: { id: true, instanceId: true },
    });
  }

  /** The synchronous dispatches' runs left waiting (QUEUED, `syncWait`) by instances not in `liveIds`. */
  async orphanWaiters(liveIds: string[]): Promise<{ id: string; instanceId: string }[]> {
    return this.db.run.findMany({
      where: { status: "QUEUED", syncWait: true, instanceId: { notIn: liveIds } },
      select: { id: true, instanceId: true },
    });
  }
}

function attemptData(runId: string, a: AttemptRecord) {
  return {
    runId,
    number: a.number,
    startedAt: new Date(a.startedAt),
    finishedAt: a.finishedAt ? new Date(a.finishedAt) : null,
    errorKind: a.errorKind,
    errorMessage: a.errorMessage,
    waitSeconds: a.waitSeconds,
  };
}
