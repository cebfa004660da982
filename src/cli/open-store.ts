import { KeyStore, keyRefusalMessage } from "../auth/keys.ts";
import { ApiError } from "../errors.ts";
import { loadConfig } from "../config.ts";
import { openDb, type Db } from "../db/client.ts";
import { migrate } from "../db/migrate.ts";
import { scrubbingWrites } from "../secrets/scrub-writes.ts";
import type { Bus } from "../events/bus.ts";
import { ManifestService } from "../manifests/manifest-service.ts";
import type { Manifest } from "../manifests/manifest.ts";
import type { Preset } from "../presets/preset.ts";
import { toPreset } from "../presets/preset-service.ts";
import { configuredCredentials } from "../secrets/credentials.ts";
import { Secrets } from "../secrets/secrets.ts";
import { learnStoredMarkers } from "../secrets/stored-markers.ts";
import { scrubbedError } from "./cli-support.ts";

/**
 * Stored data opened for a one-shot command that needs no tool surface: the database
 * (migrated), presets and manifests to read, and the API keys. No runtime is built: no
 * module is loaded, no instance registered, nothing beats, sweeps or recovers. A write
 * that changes the surface (presets, manifests) is validated against it and needs the
 * runtime instead (`withRuntime`).
 */
export interface Store {
  db: Db;
  presets(): Promise<Preset[]>;
  manifest(name: string): Promise<Manifest | null>;
  manifests(): Promise<Manifest[]>;
  /** The key store; a revocation is published to the other instances (through Redis when configured). */
  keys(): Promise<KeyStore>;
  /**
   * Refuses a key that is unknown or revoked (UNAUTHENTICATED), as every door does: a read of stored data is the
   * local operator's, and `--key` is taken by every command, so a script may pass it to all of them.
   */
  checkKey(key: string | undefined): Promise<void>;
}

const refuse = async (): Promise<never> => {
  throw new Error("a read-only store cannot write manifests");
};

/** Runs `fn` over the stored data; errors leave scrubbed of the configured and stored secrets. */
export async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const config = loadConfig();
  await migrate(config.databaseUrl);
  const secrets = new Secrets({ deny: config.envDeny });
  for (const c of configuredCredentials(config)) secrets.add(c);
  const opened = await openDb(config.databaseUrl);
  const db = scrubbingWrites(opened.db, secrets);
  const manifests = new ManifestService(db, refuse, refuse);
  let bus: Bus | undefined;
  let keys: KeyStore | undefined;
  const store: Store = {
    db,
    presets: async () => (await db.preset.findMany({ orderBy: { name: "asc" } })).map(toPreset),
    manifest: (name) => manifests.get(name),
    manifests: () => manifests.list(),
    async keys() {
      if (!keys) {
        const { runtimeBus } = await import("../runtime-topics.ts");
        bus = runtimeBus({ redisUrl: config.redisUrl, prefix: config.redisPrefix });
        keys = new KeyStore(db, bus);
      }
      return keys;
    },
    async checkKey(key) {
      if (key === undefined) return;
      const found = await (await store.keys()).identify(key);
      if ("refused" in found) throw new ApiError("UNAUTHENTICATED", keyRefusalMessage(found));
    },
  };
  try {
    return await fn(store);
  } catch (e) {
    // The stored markers' values are learnt only when there is an error to scrub.
    await learnStoredMarkers(db, secrets).catch(() => {});
    throw scrubbedError(e, secrets);
  } finally {
    await keys?.settled();
    await bus?.close();
    await db.$disconnect();
  }
}
