import type { Db } from "../../db/client.ts";
import type { ThreadStore } from "../threads.ts";
import type { CheckpointProvider, StoreProvider } from "./agent-storage.ts";

/** The default thread memory: the Thread / ThreadMessage rows the `thread` query serves. */
export function databaseCheckpointProvider(threads: ThreadStore): CheckpointProvider {
  return {
    history: (threadId) => threads.history(threadId),
    append: (threadId, messages) => threads.append(threadId, messages),
  };
}

/** The default store: AgentStoreItem rows, shared by every instance (writes are scrubbed like every row). */
export function databaseStoreProvider(db: Db): StoreProvider {
  return {
    async get(namespace, key) {
      const row = await db.agentStoreItem.findUnique({ where: { namespace_key: { namespace, key } } });
      return row ? row.value : undefined;
    },
    async put(namespace, key, value) {
      await db.agentStoreItem.upsert({
        where: { namespace_key: { namespace, key } },
        create: { namespace, key, value: value as never },
        update: { value: value as never },
      });
    },
    async delete(namespace, key) {
      await db.agentStoreItem.deleteMany({ where: { namespace, key } });
    },
    async list(namespace) {
      const rows = await db.agentStoreItem.findMany({ where: { namespace }, orderBy: { key: "asc" } });
      return rows.map((r) => ({ key: r.key, value: r.value }));
    },
  };
}
