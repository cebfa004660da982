import { createHash, randomBytes } from "node:crypto";
import type { InitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Caller } from "../auth/roles.ts";
import type { Db } from "../db/client.ts";
import type { Bus } from "../events/bus.ts";

/** A session as every instance rebuilds it from the store. */
export interface McpSession {
  id: string;
  /** The key that opened it (null: anonymous); only that caller may use it. */
  keyId: string | null;
  /** The client declared form elicitation at `initialize`. */
  elicitation: boolean;
}

/** The row's value; the protocol version and the client's name are kept for operators. */
interface Stored {
  keyId: string | null;
  elicitation: boolean;
  protocolVersion: string;
  client: string;
}

/** A session unused this long expires (its expiry slides on use, written at most once per {@link REFRESH_MS}). */
const TTL_SECONDS = 24 * 3600;
const REFRESH_MS = 3600_000;
/** How long an instance trusts what it read about a session; a deletion elsewhere reaches it on the bus sooner. */
const CACHE_MS = 5_000;
const PREFIX = "mcp-session:";

/** What {@link McpSessions.open} issues: "mcp_" and 32 random bytes in base64url. */
const SESSION_ID = /^mcp_[A-Za-z0-9_-]{43}$/;

/**
 * MCP sessions (docs/mcp.md, "Sessions across instances"). A session is a row of the
 * shared expiring store, keyed by a hash of its id: the id is 256 random bits, shown only
 * to the client. Nothing else about a session lives in one instance: every instance
 * rebuilds a transport per request from this row, so a session opened on one instance
 * continues on any other.
 */
export class McpSessions {
  /** By session id (hashing it on every request would cost more than the lookup). */
  private readonly cache = new Map<
    string,
    { session: McpSession | null; hash: string; at: number; refreshed: number }
  >();
  private readonly unlisten: () => void;

  constructor(
    private readonly db: Db,
    private readonly bus: Bus,
  ) {
    this.unlisten = bus.listen("mcpSessionClosed", ({ sessionHash }) => {
      for (const [id, entry] of this.cache) if (entry.hash === sessionHash) this.cache.delete(id);
    });
  }

  /** Opens a session for `caller` at `initialize`; returns it with its new id. */
  async open(caller: Caller, init: InitializeRequest["params"]): Promise<McpSession> {
    const id = `mcp_${randomBytes(32).toString("base64url")}`;
    const stored: Stored = {
      keyId: caller.keyId,
      elicitation: formElicitation(init.capabilities?.elicitation),
      protocolVersion: init.protocolVersion,
      client: `${init.clientInfo?.name ?? "?"} ${init.clientInfo?.version ?? ""}`.trim().slice(0, 200),
    };
    const now = Date.now();
    await this.db.cacheEntry.create({
      data: {
        key: PREFIX + hashOf(id),
        tool: "mcp-session",
        value: stored as never,
        expiresAt: new Date(now + TTL_SECONDS * 1000),
      },
    });
    const session = sessionOf(id, stored);
    this.cache.set(id, { session, hash: hashOf(id), at: now, refreshed: now });
    return session;
  }

  /** The live session with this id, or null when it is unknown, expired, deleted or not shaped like one of ours. */
  async find(id: string): Promise<McpSession | null> {
    // Not one this server could have issued: no lookup, and nothing cached for it.
    if (!SESSION_ID.test(id)) return null;
    const now = Date.now();
    const hit = this.cache.get(id);
    if (hit && now - hit.at < CACHE_MS) {
      if (hit.session && now - hit.refreshed > REFRESH_MS) this.refresh(hit);
      return hit.session;
    }
    const hash = hashOf(id);
    const row = await this.db.cacheEntry.findUnique({ where: { key: PREFIX + hash } });
    const session = row && row.expiresAt.getTime() > now ? sessionOf(id, row.value as unknown as Stored) : null;
    if (this.cache.size > 10_000) this.cache.clear();
    const entry = { session, hash, at: now, refreshed: row ? row.expiresAt.getTime() - TTL_SECONDS * 1000 : now };
    this.cache.set(id, entry);
    if (session && now - entry.refreshed > REFRESH_MS) this.refresh(entry);
    return session;
  }

  /** Deletes a session (HTTP DELETE); every instance forgets it. */
  async close(id: string): Promise<void> {
    const hash = hashOf(id);
    await this.db.cacheEntry.deleteMany({ where: { key: PREFIX + hash } });
    this.cache.delete(id);
    this.bus.publish("mcpSessionClosed", { sessionHash: hash });
  }

  dispose(): void {
    this.unlisten();
  }

  /** Slides a used session's expiry (not awaited: a failure only shortens its life). */
  private refresh(entry: { hash: string; refreshed: number }): void {
    entry.refreshed = Date.now();
    this.db.cacheEntry
      .updateMany({
        where: { key: PREFIX + entry.hash },
        data: { expiresAt: new Date(entry.refreshed + TTL_SECONDS * 1000) },
      })
      .catch(() => {});
  }
}

/** Whether `caller` is the one that opened `session` (the same key; anonymous for anonymous). */
export function ownsSession(caller: Caller, session: McpSession): boolean {
  return session.keyId === caller.keyId;
}

function sessionOf(id: string, s: Stored): McpSession {
  return { id, keyId: s.keyId ?? null, elicitation: s.elicitation === true };
}

/** Form elicitation is declared by `elicitation: { form }`, or by an empty `elicitation` (before modes existed). */
export function formElicitation(declared: { form?: unknown; url?: unknown } | undefined): boolean {
  return declared !== undefined && (declared.form !== undefined || declared.url === undefined);
}

function hashOf(id: string): string {
  return createHash("sha256").update(id).digest("base64url");
}
