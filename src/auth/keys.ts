import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Db } from "../db/client.ts";
import { isUniqueViolation } from "../db/client.ts";
import { ApiError, describeIssues } from "../errors.ts";
import { limitsIssues, resolveLimits, type LimitsInit, type RateLimit } from "../limits/limits.ts";
import type { Bus } from "../events/bus.ts";
import { failureLog, type FailureLog } from "../failure-log.ts";
import type { Logger } from "../log.ts";
import { checkedScope, scopeNow, type KeyScope } from "./key-scope.ts";
import { isRole, type Caller, type Role } from "./roles.ts";

const KEY_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * How long a verified key is trusted without reading the database again: the bound within which a revocation is
 * refused on every instance, whatever the bus does (docs/security-model.md §1). The bus's `keyRevoked` clears the
 * cache at once where it arrives; this bound is for where it does not (a cut Redis, the CLI on the embedded default,
 * a dispatch racing the message). One primary-key read per key per second per instance.
 */
export const KEY_CACHE_TTL_MS = 1_000;

/** A key's `lastUsedAt` is written at most this often per key per instance. */
export const LAST_USED_EVERY_MS = 60_000;

/** Why a key is refused: it was never issued (or is malformed), revoked, or past its expiry. */
export type KeyRefusal = { refused: "unknown" | "revoked" | "expired" };

/** What an UNAUTHENTICATED refusal of a key says (never the key). */
export function keyRefusalMessage(refusal: KeyRefusal): string {
  return refusal.refused === "expired" ? "the API key has expired" : "the API key is unknown or revoked";
}

/** What a key may be created with beyond its name and role. */
export interface KeyOptions {
  /** When it stops being accepted; must be in the future. Absent: never. */
  expiresAt?: Date;
  /** `{ tools: [names] }` or `{ manifest: name }` (auth/key-scope.ts); absent: the role's whole reach. */
  scope?: unknown;
}

/** SHA-256 of a key: keys are 256-bit random, so a fast hash is enough and lookups stay O(1). */
export function hashKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** A fresh key: `tai_` + 43 base64url characters (256 bits). */
export function newKey(): string {
  return `tai_${randomBytes(32).toString("base64url")}`;
}

/** A key as listed (never the key itself). */
export interface KeyInfo {
  name: string;
  role: Role;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
  /** The key's own rate, across tools; null: none. */
  rate: RateLimit | null;
  /** When it stops being accepted; null: never. */
  expiresAt: string | null;
  /** When it last authenticated (written at most once a minute per instance); null: never. */
  lastUsedAt: string | null;
  /** Its scope; null: its role's whole reach. */
  scope: KeyScope | null;
}

type Verified = { caller: Caller | null; refusal: KeyRefusal; expiresAt: number | null; at: number };

/**
 * API keys: created shown-once, stored hashed, verified per request through a small
 * cache that a revocation (on any instance, via the bus) clears.
 */
export class KeyStore {
  private readonly cache = new Map<string, Verified>();
  /** Last-use writes under way (never awaited by a request; {@link KeyStore.settled} waits for them). */
  private readonly writes = new Set<Promise<void>>();
  /** When this instance last wrote each key's `lastUsedAt`. */
  private readonly usedAt = new Map<string, number>();
  private readonly failures: FailureLog | null;

  constructor(
    private readonly db: Db,
    private readonly bus: Bus,
    log?: Logger,
  ) {
    bus.listen("keyRevoked", () => this.cache.clear());
    this.failures = log ? failureLog(log) : null;
  }

  /**
   * Creates a key and returns it; only its hash is stored. `rate`: a rate over every dispatch of the key, across tools
   * (docs/flow-control.md §2).
   */
  async create(
    name: string,
    role: Role,
    key: string = newKey(),
    rate?: LimitsInit["rate"],
    options: KeyOptions = {},
  ): Promise<string> {
    if (!KEY_NAME.test(name))
      throw ApiError.badInput(`key name "${name}" must match ^[A-Za-z0-9_.-]{1,64}$`, [
        { path: "/name", message: "must match ^[A-Za-z0-9_.-]{1,64}$" },
      ]);
    if (!isRole(role))
      throw ApiError.badInput(`role must be READER, USER or ADMIN`, [
        { path: "/role", message: "must be READER, USER or ADMIN" },
      ]);
    const issues = rate === undefined ? [] : limitsIssues(name, { rate }, "");
    if (issues.length) throw ApiError.badInput(`invalid rate for key "${name}": ${describeIssues(issues)}`, issues);
    const { expiresAt } = options;
    if (expiresAt !== undefined && !(expiresAt instanceof Date && expiresAt.getTime() > Date.now()))
      throw ApiError.badInput(`the expiry of key "${name}" must be a date-time in the future`, [
        { path: "/expiresAt", message: "must be a date-time in the future" },
      ]);
    const scope = options.scope === undefined ? undefined : await checkedScope(this.db, name, options.scope);
    try {
      await this.db.apiKey.create({
        data: {
          ...{ id: randomUUID(), name, role, hash: hashKey(key), prefix: key.slice(0, 8), rate: rate as never },
          ...{ expiresAt: expiresAt ?? null, scope: scope as never },
        },
      });
    } catch (e) {
      if (isUniqueViolation(e))
        throw new ApiError("CONFLICT", `a key named "${name}" already exists`, [
          { path: "/name", message: "is taken" },
        ]);
      throw e;
    }
    return key;
  }

  /**
   * Sets a key's own rate (docs/flow-control.md §2), or removes it with null. Every instance applies it within
   * {@link KEY_CACHE_TTL_MS}, to its requests and its open sockets' operations alike.
   */
  async setRate(name: string, rate: LimitsInit["rate"] | null): Promise<void> {
    const issues = rate === null ? [] : limitsIssues(name, { rate }, "");
    if (issues.length) throw ApiError.badInput(`invalid rate for key "${name}": ${describeIssues(issues)}`, issues);
    const row = await this.db.apiKey.findUnique({ where: { name } });
    if (!row || row.revokedAt) throw new ApiError("NOT_FOUND", `no active key named "${name}"`);
    await this.db.apiKey.update({ where: { name }, data: { rate: rate as never } });
    this.cache.clear();
  }

  /** Revokes a key by name; its sockets are closed through the `keyRevoked` event. */
  async revoke(name: string): Promise<void> {
    const row = await this.db.apiKey.findUnique({ where: { name } });
    if (!row || row.revokedAt) throw new ApiError("NOT_FOUND", `no active key named "${name}"`);
    await this.db.apiKey.update({ where: { name }, data: { revokedAt: new Date() } });
    this.cache.clear();
    this.bus.publish("keyRevoked", { keyId: row.id });
  }

  /** Which of these key ids are revoked, expired (or gone): their open streams end. */
  async revokedAmong(ids: string[]): Promise<string[]> {
    const active = await this.db.apiKey.findMany({
      where: { id: { in: ids }, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] },
      select: { id: true },
    });
    const live = new Set(active.map((r) => r.id));
    return ids.filter((id) => !live.has(id));
  }

  async list(): Promise<KeyInfo[]> {
    const rows = await this.db.apiKey.findMany({ orderBy: { createdAt: "asc" } });
    return rows.map((r) => ({
      name: r.name,
      role: r.role as Role,
      prefix: r.prefix,
      createdAt: r.createdAt.toISOString(),
      revokedAt: r.revokedAt?.toISOString() ?? null,
      rate: r.rate ? (resolveLimits(r.name, { rate: r.rate as never }).rate ?? null) : null,
      expiresAt: r.expiresAt?.toISOString() ?? null,
      lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
      scope: (r.scope as KeyScope | null) ?? null,
    }));
  }

  /** The caller a key stands for, or null when it is unknown, revoked or expired. */
  async verify(key: string): Promise<Caller | null> {
    const found = await this.identify(key);
    return "refused" in found ? null : found;
  }

  /**
   * The caller a key stands for, or why it is refused. An expired key is refused exactly as a revoked one. A key
   * accepted records its use (`lastUsedAt`) at most once a minute per instance, fire and forget: the request never
   * waits for it nor fails with it.
   */
  async identify(key: string): Promise<Caller | KeyRefusal> {
    const hash = hashKey(key);
    const now = Date.now();
    const hit = this.cache.get(hash);
    const verified = hit && now - hit.at < KEY_CACHE_TTL_MS ? hit : await this.read(hash);
    if (verified.expiresAt !== null && verified.expiresAt <= Date.now()) return { refused: "expired" };
    if (!verified.caller) return verified.refusal;
    this.touch(verified.caller.keyId!);
    return verified.caller;
  }

  private async read(hash: string): Promise<Verified> {
    const row = await this.db.apiKey.findUnique({ where: { hash } });
    const refusal: KeyRefusal = { refused: !row || !isRole(row.role) ? "unknown" : "revoked" };
    const caller: Caller | null =
      row && !row.revokedAt && isRole(row.role) ? { role: row.role, keyName: row.name, keyId: row.id } : null;
    if (caller && row?.rate) caller.rate = resolveLimits(row.name, { rate: row.rate as never }).rate;
    if (caller && row) {
      const scope = await scopeNow(this.db, row.scope);
      if (scope) caller.scope = scope;
    }
    const expiresAt = caller ? (row?.expiresAt?.getTime() ?? null) : null;
    const verified = { caller, refusal, expiresAt, at: Date.now() };
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(hash, verified);
    return verified;
  }

  /** Writes a key's `lastUsedAt`, at most once per {@link LAST_USED_EVERY_MS} on this instance, never awaited. */
  private touch(keyId: string): void {
    const now = Date.now();
    const last = this.usedAt.get(keyId);
    if (last !== undefined && now - last < LAST_USED_EVERY_MS) return;
    if (this.usedAt.size > 10_000) this.usedAt.clear();
    this.usedAt.set(keyId, now);
    const write = this.db.apiKey.updateMany({ where: { id: keyId }, data: { lastUsedAt: new Date(now) } }).then(
      () => {},
      (e: unknown) =>
        this.failures?.failed("warn", "recording an API key's last use failed", { error: (e as Error).message }),
    );
    this.writes.add(write);
    void write.finally(() => this.writes.delete(write));
  }

  /** Waits for the last-use writes under way (a closing runtime or CLI command, before the database goes). */
  async settled(): Promise<void> {
    await Promise.all([...this.writes]);
  }

  /**
   * First start: accepts `TAI_ADMIN_KEY` as given (stored hashed), or, when no admin key
   * exists at all, creates one and returns it so the caller prints it once.
   */
  async bootstrap(adminKey?: string): Promise<string | null> {
    if (adminKey) {
      const exists = await this.db.apiKey.findUnique({ where: { hash: hashKey(adminKey) } });
      if (!exists) {
        const name = (await this.db.apiKey.findUnique({ where: { name: "bootstrap-admin" } }))
          ? `bootstrap-admin-${Date.now()}`
          : "bootstrap-admin";
        try {
          await this.create(name, "ADMIN", adminKey);
        } catch (e) {
          // Another instance starting at the same moment stored the same key first.
          if (!(
            e instanceof ApiError &&
            e.code === "CONFLICT" &&
            (await this.db.apiKey.findUnique({ where: { hash: hashKey(adminKey) } }))
          ))
            throw e;
        }
      }
      return null;
    }
    const admins = await this.db.apiKey.count({ where: liveAdmins() });
    if (admins > 0) return null;
    // Always try the name "admin" first: the unique name is what makes two instances
    // starting together agree on one key (the loser sees the winner's and stops).
    for (const name of ["admin", `admin-${Date.now()}`]) {
      try {
        return await this.create(name, "ADMIN");
      } catch (e) {
        if (!(e instanceof ApiError && e.code === "CONFLICT")) throw e;
        if ((await this.db.apiKey.count({ where: liveAdmins() })) > 0) return null;
        // "admin" exists but is revoked: fall through to a fresh name.
      }
    }
    return null;
  }
}

/** Admin keys that still work: not revoked, not expired (an expired admin key is no admin at first start). */
function liveAdmins() {
  return { role: "ADMIN", revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] };
}
