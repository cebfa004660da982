import type { ThreadStore } from "../threads.ts";
import type { Db } from "../../db/client.ts";
import { DATABASE_PROVIDER, memoryCheckpointProvider, memoryStoreProvider } from "./agent-storage.ts";
import { databaseCheckpointProvider, databaseStoreProvider } from "./database-storage.ts";
import type { AgentPlugin } from "../agent-plugin.ts";

/** The name of the runtime's own storage plugin. */
export const BUILTIN_STORAGE = "builtin-storage";

/**
 * The storage every runtime has: "database" (the default, shared by every instance) and
 * "memory" (this process only), for both thread memory and the store.
 */
export function builtinStorage(db: Db, threads: ThreadStore): AgentPlugin {
  return {
    name: BUILTIN_STORAGE,
    description: "The platform database (default) and in-process memory.",
    checkpointProviders: {
      [DATABASE_PROVIDER]: databaseCheckpointProvider(threads),
      memory: memoryCheckpointProvider(),
    },
    storeProviders: { [DATABASE_PROVIDER]: databaseStoreProvider(db), memory: memoryStoreProvider() },
  };
}
