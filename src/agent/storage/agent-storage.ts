import type { ModelMessage } from "ai";
import type { StoredMessage } from "../threads.ts";

/**
 * Where an agent's thread memory is kept: the conversation a run reads before its turn
 * and appends to as it goes (the seed's `checkpoint_provider`, docs/plugins.md §3).
 * Contract: `append` keeps the order given and is visible to the next `history` of the
 * same thread; what it receives is already scrubbed of every known secret.
 */
export interface CheckpointProvider {
  /** The thread's messages as model messages, oldest first; [] for a thread it never saw. */
  history(threadId: string): Promise<ModelMessage[]>;
  append(threadId: string, messages: StoredMessage[]): Promise<void>;
}

/**
 * An agent's long-term memory across threads: JSON values by namespace and key (the
 * seed's `store_provider`, docs/plugins.md §3). Contract: values are JSON; `put` replaces
 * the value under the key; `list` returns the namespace's items ordered by key.
 */
export interface StoreProvider {
  get(namespace: string, key: string): Promise<unknown | undefined>;
  put(namespace: string, key: string, value: unknown): Promise<void>;
  delete(namespace: string, key: string): Promise<void>;
  list(namespace: string): Promise<Array<{ key: string; value: unknown }>>;
}

export { DATABASE_PROVIDER } from "../../plugins/plugin-catalog.ts";

/** Thread memory held in this process only: gone on restart, not shared between instances. */
export function memoryCheckpointProvider(): CheckpointProvider {
  const threads = new Map<string, StoredMessage[]>();
  return {
    async history(threadId) {
      return (threads.get(threadId) ?? []).map(
        (m) =>
          structuredClone(m.message) ??
          ({ role: m.role === "assistant" ? "assistant" : "user", content: m.content } as ModelMessage),
      );
    },
    async append(threadId, messages) {
      const list = threads.get(threadId) ?? [];
      list.push(...messages.map((m) => structuredClone(m)));
      threads.set(threadId, list);
    },
  };
}

/** A store held in this process only: gone on restart, not shared between instances. */
export function memoryStoreProvider(): StoreProvider {
  const items = new Map<string, Map<string, unknown>>();
  return {
    async get(namespace, key) {
      const v = items.get(namespace)?.get(key);
      return v === undefined ? undefined : structuredClone(v);
    },
    async put(namespace, key, value) {
      if (!items.has(namespace)) items.set(namespace, new Map());
      items.get(namespace)!.set(key, structuredClone(value));
    },
    async delete(namespace, key) {
      items.get(namespace)?.delete(key);
    },
    async list(namespace) {
      return [...(items.get(namespace) ?? new Map<string, unknown>())]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, value]) => ({ key, value: structuredClone(value) }));
    },
  };
}
