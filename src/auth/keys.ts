import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Db } from "../db/client.ts";
import { isUniqueViolation } from "../db/client.ts";
import { ApiError, describeIssues } from "../errors.ts";
import { limitsIssues, resolveLimits, type LimitsInit, type RateLimit } from "../limits/limits.ts";
import type { Bus } from "../events/bus.ts";
import { isRole, type Caller, type Role } from "./roles.ts";

const KEY_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * How long a verified key is trusted without reading the database again: the bound within which a revocation is
 * refused on every instance, whatever the bus does (docs/security-model.md §1). The bus's `keyRevoked` clears the
 * cache at once where it arrives; this bound is for where it does not (a cut Redis, the CLI on the embedded default,
 * a dispatch racing the message). One primary-key read per key per second per instance.
 */
export const KEY_CACHE_TTL_MS = 1_000;

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
}

/**
 * API keys: created shown-once, stored hashed, verified per request through a small
 * cache that a revocation (on any instance, via the bus) clears.
 */
export class KeyStore {
  private readonly cache = new Map<string, { caller: Caller | null; at: number }>();

  constructor(
    private readonly db: Db,
    private readonly bus: Bus,
  ) {
    bus.listen("keyRevoked", () => this.cache.clear());
  }

  /**
   * Creates a key and returns it; only its hash is stored. `rate`: a rate over every dispatch of the key, across tools
   * (docs/flow-control.md §2).
   */
  async create(name: string, role: Role, key: string = newKey(), rate?: LimitsInit["rate"]): Promise<string> {
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
    try {
      await this.db.apiKey.create({
        data: { id: randomUUID(), name, role, hash: hashKey(key), prefix: key.slice(0, 8), rate: rate as never },
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

  /** Which of these key ids are revoked (or gone). */
  async revokedAmong(ids: string[]): Promise<string[]> {
    const active = await this.db.apiKey.findMany({ where: { id: { in: ids }, revokedAt: null }, select: { id: true } });
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
    }));
  }

  /** The caller a key stands for, or null when it is unknown or revoked. */
  async verify(key: string): Promise<Caller | null> {
    const hash = hashKey(key);
    const hit = this.cache.get(hash);
    if (hit && Date.now() - hit.at < KEY_CACHE_TTL_MS) return hit.caller;
    const row = await this.db.apiKey.findUnique({ where: { hash } });
    const caller: Caller | null =
      row && !row.revokedAt && isRole(row.role) ? { role: row.role, keyName: row.name, keyId: row.id } : null;
    if (caller && row?.rate) caller.rate = resolveLimits(row.name, { rate: row.rate as never }).rate;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(hash, { caller, at: Date.now() });
    return caller;
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
    const admins = await this.db.apiKey.count({ where: { role: "ADMIN", revokedAt: null } });
    if (admins > 0) return null;
    // Always try the name "admin" first: the unique name is what makes two instances
    // starting together agree on one key (the loser sees the winner's and stops).
    for (const name of ["admin", `admin-${Date.now()}`]) {
      try {
        return await this.create(name, "ADMIN");
      } catch (e) {
        if (!(e instanceof ApiError && e.code === "CONFLICT")) throw e;
        if ((await this.db.apiKey.count({ where: { role: "ADMIN", revokedAt: null } })) > 0) return null;
        // "admin" exists but is revoked: fall through to a fresh name.
      }
    }
    return null;
  }
}
