import type { Db } from "./client.ts";

/** A persisted key-value store with expiry, shared by every instance (CacheEntry rows). */
export interface ExpiringStore {
  /** The live value under `key`, or undefined when absent or expired. */
  get(key: string): Promise<unknown | undefined>;
  /** Stores `value` under `key` for `ttlSeconds`. */
  set(key: string, value: unknown, ttlSeconds: number, tool?: string): Promise<void>;
}

export function expiringStore(db: Db): ExpiringStore {
  return {
    async get(key) {
      const row = await db.cacheEntry.findUnique({ where: { key } });
      if (!row) return undefined;
      if (row.expiresAt <= new Date()) {
        await db.cacheEntry.deleteMany({ where: { key, expiresAt: { lte: new Date() } } });
        return undefined;
      }
      return row.value;
    },
    async set(key, value, ttlSeconds, tool = "") {
      const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
      await db.cacheEntry.upsert({
        where: { key },
        create: { key, tool, value: value as never, expiresAt },
        update: { value: value as never, expiresAt, tool },
      });
    },
  };
}

/** Deletes every expired row of the store (they read as absent already); the cluster sweeps with it. */
export async function deleteExpired(db: Db): Promise<void> {
  await db.cacheEntry.deleteMany({ where: { expiresAt: { lte: new Date() } } });
}
