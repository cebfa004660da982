import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Db } from "../db/client.ts";
import { TX } from "../db/contention.ts";
import type { Bus } from "../events/bus.ts";
import type { InteractionRecord, InteractionRequest, InteractionStatus, OpenedInteraction } from "./park.ts";

type Row = Awaited<ReturnType<Db["interaction"]["findUniqueOrThrow"]>>;

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export function toInteraction(r: Row): InteractionRecord {
  return {
    id: r.id,
    runId: r.runId,
    tool: r.tool,
    question: r.question,
    to: r.to as InteractionRecord["to"],
    answerFormat: (r.answerFormat ?? null) as InteractionRecord["answerFormat"],
    status: r.status as InteractionRecord["status"],
    expiresAt: r.expiresAt?.toISOString() ?? null,
    answer: r.answer ?? null,
    answeredAt: r.answeredAt?.toISOString() ?? null,
    callback: r.callbackHash !== null,
    createdAt: r.createdAt.toISOString(),
  };
}

/**
 * An interaction as the bus carries it. The answer never crosses the bus: a secret-tier
 * run's answer becomes its output, which is never published (docs/security-model.md §3); a reader that
 * needs it reads the stored interaction.
 */
export function withoutAnswer(i: InteractionRecord): PublishedInteraction {
  const { answer: _answer, ...rest } = i;
  return rest;
}

/** An interaction as the bus carries it: no answer. */
export type PublishedInteraction = Omit<InteractionRecord, "answer">;

/**
 * Persistence of interactions; every status change is a guarded (compare-and-set) update.
 * Each interaction is published on the bus (`interaction`) as stored, without its answer,
 * once when it opens and once when it closes (answered, expired or cancelled), after the
 * write.
 */
export class InteractionStore {
  constructor(
    private readonly db: Db,
    /** Builds the public callback URL for a token. Contract: pure. */
    private readonly callbackUrl: (token: string) => string,
    private readonly bus: Pick<Bus, "publish">,
  ) {}

  /** Opens one interaction (PENDING). */
  async open(runId: string, tool: string, req: InteractionRequest): Promise<OpenedInteraction> {
    const id = randomUUID();
    const token = req.callback ? randomBytes(32).toString("base64url") : null;
    const row = await this.db.interaction.create({
      data: {
        id,
        runId,
        tool,
        question: req.question,
        to: req.to ?? "user",
        answerFormat: (req.answerFormat ?? undefined) as never,
        status: "PENDING",
        expiresAt: req.expiresInSeconds ? new Date(Date.now() + req.expiresInSeconds * 1000) : null,
        callbackHash: token ? hashToken(token) : null,
      },
    });
    this.bus.publish("interaction", withoutAnswer(toInteraction(row)));
    return { id, ...(token ? { callbackUrl: this.callbackUrl(token) } : {}) };
  }

  /** Attaches the park's state to the run's pending interactions. */
  async attachState(runId: string, ids: string[], state: unknown): Promise<void> {
    await this.db.interaction.updateMany({
      where: { runId, id: { in: ids } },
      data: { state: { parked: true, state: state ?? null } as never },
    });
  }

  async get(id: string): Promise<InteractionRecord | null> {
    const r = await this.db.interaction.findUnique({ where: { id } });
    return r ? toInteraction(r) : null;
  }

  async byToken(token: string): Promise<InteractionRecord | null> {
    const r = await this.db.interaction.findUnique({ where: { callbackHash: hashToken(token) } });
    return r ? toInteraction(r) : null;
  }

  async forRun(runId: string): Promise<InteractionRecord[]> {
    return (await this.db.interaction.findMany({ where: { runId }, orderBy: { createdAt: "asc" } })).map(toInteraction);
  }

  /** Newest first. */
  async list(status?: InteractionStatus, take = 500, skip = 0): Promise<InteractionRecord[]> {
    return (
      await this.db.interaction.findMany({
        where: status ? { status } : {},
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take,
        skip,
      })
    ).map(toInteraction);
  }

  /** PENDING → ANSWERED; false when it was not pending (a second answer loses). */
  async answer(id: string, answer: unknown): Promise<boolean> {
    const { count } = await this.db.interaction.updateMany({
      where: { id, status: "PENDING" },
      data: { status: "ANSWERED", answer: answer as never, answeredAt: new Date() },
    });
    if (count === 1) await this.published(id);
    return count === 1;
  }

  /**
   * Every PENDING → ANSWERED in one transaction, or none: returns the id of the first
   * that was no longer pending (the whole write rolled back), or null when all were stored.
   */
  async answerAll(answers: { id: string; answer: unknown }[]): Promise<string | null> {
    const lost = { id: null as string | null };
    try {
      await this.db.$transaction(async (tx) => {
        const answeredAt = new Date();
        for (const { id, answer } of answers) {
          const { count } = await tx.interaction.updateMany({
            where: { id, status: "PENDING" },
            data: { status: "ANSWERED", answer: answer as never, answeredAt },
          });
          if (count !== 1) throw Object.assign(lost, { id });
        }
      }, TX);
    } catch (e) {
      if (e !== lost) throw e;
      return lost.id;
    }
    for (const { id } of answers) await this.published(id);
    return null;
  }

  /** The parked state and the answers, once every parked interaction of the run is answered. */
  async readyToResume(
    runId: string,
  ): Promise<{ state: unknown; answers: Record<string, unknown>; ids: string[] } | null> {
    const rows = await this.db.interaction.findMany({ where: { runId }, orderBy: { createdAt: "asc" } });
    const parked = rows.filter((r) => (r.state as { parked?: boolean } | null)?.parked && r.status !== "CANCELLED");
    if (!parked.length || parked.some((r) => r.status !== "ANSWERED")) return null;
    return {
      state: (parked[0].state as { state: unknown }).state,
      answers: Object.fromEntries(parked.map((r) => [r.id, r.answer])),
      ids: parked.map((r) => r.id),
    };
  }

  /** Consumes answered parked interactions so a later park of the same run starts clean. */
  async consume(ids: string[]): Promise<void> {
    await this.db.interaction.updateMany({ where: { id: { in: ids } }, data: { state: { parked: false } as never } });
  }

  /** Marks the run's open interactions CANCELLED (the run ended without them). */
  async cancelOpen(runId: string): Promise<void> {
    const open = await this.db.interaction.findMany({ where: { runId, status: "PENDING" }, select: { id: true } });
    for (const { id } of open) await this.close(id, "CANCELLED");
  }

  /** PENDING interactions past their expiry → EXPIRED; returns their run ids. */
  async expireDue(now = new Date()): Promise<string[]> {
    const due = await this.db.interaction.findMany({
      where: { status: "PENDING", expiresAt: { lt: now } },
      select: { id: true, runId: true },
    });
    const runs = new Set<string>();
    for (const d of due) if (await this.close(d.id, "EXPIRED")) runs.add(d.runId);
    return [...runs];
  }

  /** PENDING → `status`; false when it was no longer pending. */
  private async close(id: string, status: "EXPIRED" | "CANCELLED"): Promise<boolean> {
    const { count } = await this.db.interaction.updateMany({ where: { id, status: "PENDING" }, data: { status } });
    if (count === 1) await this.published(id);
    return count === 1;
  }

  /** Publishes the interaction as stored now. */
  private async published(id: string): Promise<void> {
    const row = await this.db.interaction.findUnique({ where: { id } });
    if (row) this.bus.publish("interaction", withoutAnswer(toInteraction(row)));
  }
}
