import type { ModelMessage } from "ai";
import type { Db } from "../db/client.ts";
import { unstorableIssues } from "../db/storable.ts";
import { ApiError, type Issue } from "../errors.ts";

/** A message a caller records in a thread without running: `{ role, content }`. */
export interface ThreadMessageInput {
  role: "user" | "assistant";
  content: string;
}

/** Who wrote a thread message. */
export const THREAD_MESSAGE_ROLES = ["user", "assistant", "tool"] as const;
export type ThreadMessageRole = (typeof THREAD_MESSAGE_ROLES)[number];

/** A message as stored: display text plus the provider-level message to replay. */
export interface StoredMessage {
  role: ThreadMessageRole;
  content: string;
  /** The model message (tool calls, tool results) a later run replays. */
  message?: ModelMessage;
}

/** A thread as every read serves it. */
export interface ThreadView {
  id: string;
  messages: { role: ThreadMessageRole; content: string; at: string; data: unknown }[];
  createdAt: string;
  updatedAt: string;
}

/**
 * Persisted conversations. Messages are appended, never rewritten; a run on a thread
 * reads the history back as model messages, on any instance.
 */
export class ThreadStore {
  constructor(private readonly db: Db) {}

  /** Appends messages in order, creating the thread if it is new. */
  async append(threadId: string, messages: StoredMessage[]): Promise<void> {
    const now = new Date();
    await this.db.$transaction([
      this.db.thread.upsert({ where: { id: threadId }, create: { id: threadId }, update: { updatedAt: now } }),
      ...messages.map((m) =>
        this.db.threadMessage.create({
          data: { threadId, role: m.role, content: m.content, data: (m.message ?? undefined) as never },
        }),
      ),
    ]);
  }

  /**
   * Ensures the thread exists (a run's thread is readable from its first event), owned by
   * `owner` when this call creates it. Returns the thread's owner as stored: whoever
   * created it first (null for a thread from before owners were recorded).
   */
  async ensure(threadId: string, owner: string): Promise<string | null> {
    const row = await this.db.thread.upsert({
      where: { id: threadId },
      create: { id: threadId, owner },
      update: {},
      select: { owner: true },
    });
    return row.owner;
  }

  /** Deletes a thread that has no messages (one a refused write created). */
  async dropIfEmpty(threadId: string): Promise<void> {
    await this.db.thread.deleteMany({ where: { id: threadId, messages: { none: {} } } });
  }

  /** The thread's owner: undefined when there is no such thread, null when it predates owners. */
  async owner(threadId: string): Promise<string | null | undefined> {
    const row = await this.db.thread.findUnique({ where: { id: threadId }, select: { owner: true } });
    return row ? row.owner : undefined;
  }

  async get(threadId: string): Promise<ThreadView | null> {
    const row = await this.db.thread.findUnique({
      where: { id: threadId },
      include: { messages: { orderBy: { id: "asc" } } },
    });
    if (!row) return null;
    return {
      id: row.id,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
      messages: live(row.messages).map((m) => ({
        role: m.role as ThreadMessageRole,
        content: m.content,
        at: m.at.toISOString(),
        data: m.data ?? null,
      })),
    };
  }

  /**
   * The history as model messages, oldest first: the live branch (what rewinds abandoned
   * is left out), or, with `upTo`, the branch as it stood at that message id (a fork's
   * checkpoint, docs/agent-stream.md §6.1).
   */
  async history(threadId: string, upTo?: number): Promise<ModelMessage[]> {
    const rows = await this.db.threadMessage.findMany({
      where: { threadId, ...(upTo === undefined ? {} : { id: { lte: upTo } }) },
      orderBy: { id: "asc" },
    });
    return live(rows).map(
      (r) =>
        (r.data as ModelMessage | null) ??
        ({ role: r.role === "assistant" ? "assistant" : "user", content: r.content } as ModelMessage),
    );
  }

  /** The id of the thread's last stored row (0 when none): a run's checkpoint in its thread. */
  async mark(threadId: string): Promise<number> {
    const last = await this.db.threadMessage.findFirst({
      where: { threadId },
      orderBy: { id: "desc" },
      select: { id: true },
    });
    return last?.id ?? 0;
  }

  /**
   * Rewinds the thread to the checkpoint `to` (a fork): the rows after it stay stored but
   * leave the live branch. Returns the rewind's own id, the fork's checkpoint.
   */
  async rewind(threadId: string, to: number): Promise<number> {
    const row = await this.db.threadMessage.create({
      data: { threadId, role: REWIND, content: "", data: { rewindTo: to } },
    });
    return row.id;
  }

  /** Drops a rewind whose fork was refused before it ran. */
  async dropRewind(id: number): Promise<void> {
    await this.db.threadMessage.deleteMany({ where: { id, role: REWIND } });
  }
}

/** The role of a rewind row: not a message, a marker that abandons the rows after its `rewindTo`. */
const REWIND = "rewind";

/** The rows of the live branch: each rewind drops the rows before it whose id is above its `rewindTo`. */
function live<R extends { id: number; role: string; data: unknown }>(rows: R[]): R[] {
  let kept: R[] = [];
  for (const r of rows) {
    if (r.role === REWIND) {
      const to = (r.data as { rewindTo?: number } | null)?.rewindTo ?? 0;
      kept = kept.filter((k) => k.id <= to);
    } else kept.push(r);
  }
  return kept;
}

/** Checks `appendThreadMessages` input: a non-empty list of `{ role: user|assistant, content }`. */
export function checkThreadMessages(messages: unknown): ThreadMessageInput[] {
  const issues: Issue[] = [];
  if (!Array.isArray(messages) || messages.length === 0)
    throw ApiError.badInput("messages must be a non-empty list", [
      { path: "/messages", message: "must be a non-empty list" },
    ]);
  messages.forEach((m, i) => {
    const path = `/messages/${i}`;
    if (typeof m !== "object" || m === null || Array.isArray(m))
      return void issues.push({ path, message: "must be an object { role, content }" });
    const { role, content, ...rest } = m as Record<string, unknown>;
    if (role !== "user" && role !== "assistant")
      issues.push({ path: `${path}/role`, message: 'must be "user" or "assistant"' });
    if (typeof content !== "string") issues.push({ path: `${path}/content`, message: "must be a string" });
    else issues.push(...unstorableIssues(content, `${path}/content`));
    for (const k of Object.keys(rest))
      issues.push({ path: `${path}/${k}`, message: "is not a message field (role, content)" });
  });
  if (issues.length)
    throw ApiError.badInput(
      `invalid thread messages: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
      issues,
    );
  return messages as ThreadMessageInput[];
}
