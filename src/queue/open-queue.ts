import type { Config } from "../config.ts";
import { providerOf } from "../db/client.ts";
import type { RunTransitions } from "../dispatch/run-transitions.ts";
import type { Logger } from "../log.ts";
import { EmbeddedQueue } from "./embedded-queue.ts";
import { PgBossQueue } from "./pgboss-queue.ts";
import type { RunQueue } from "./run-queue.ts";

/** The queue engine of the database (docs/run-lifecycle.md §11.3): pg-boss on PostgreSQL, embedded on SQLite. */
export function openQueue(config: Config, moves: Pick<RunTransitions, "queuedIds">, log: Logger): RunQueue {
  if (providerOf(config.databaseUrl) === "sqlite")
    return new EmbeddedQueue({ waiting: (take) => moves.queuedIds(take), log });
  return new PgBossQueue({ connectionString: config.databaseUrl, log });
}
