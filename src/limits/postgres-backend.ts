import { RateLimiterPostgres } from "rate-limiter-flexible";
import type pg from "pg";
import type { Logger } from "../log.ts";
import { counterOf, type Counter, type Slot } from "./limit-backend.ts";
import { SharedLimits } from "./shared-limits.ts";

/** The table rate-limiter-flexible keeps its PostgreSQL counters in (it creates it). */
const TABLE = "tai42_limit_counters";

/**
 * Limits on PostgreSQL without Redis: rate-limiter-flexible's `RateLimiterPostgres` counters (rates and breakers
 * across instances) in {@link TABLE}. Concurrency caps hold per instance, each its share of the cap (the cap divided
 * by the live instances): PostgreSQL has no leased semaphore here (docs/flow-control.md §4).
 */
export class PostgresLimits extends SharedLimits {
  readonly kind = "postgres";

  private constructor(
    private readonly pool: pg.Pool,
    log: Logger,
    instances: () => number,
  ) {
    super(log, instances);
  }

  /** Opens the backend once its table exists. */
  static async open(pool: pg.Pool, log: Logger, instances: () => number): Promise<PostgresLimits> {
    await new Promise<void>((resolve, reject) => {
      new RateLimiterPostgres(
        { storeClient: pool, storeType: "pool", tableName: TABLE, points: 1, duration: 1 },
        (e?: unknown) => (e ? reject(e instanceof Error ? e : new Error(String(e))) : resolve()),
      );
    });
    return new PostgresLimits(pool, log, instances);
  }

  protected sharedCounter(name: string, points: number, durationSeconds: number): Counter {
    return counterOf(
      new RateLimiterPostgres({
        storeClient: this.pool,
        storeType: "pool",
        tableName: TABLE,
        tableCreated: true,
        keyPrefix: name,
        points,
        duration: durationSeconds,
      }),
    );
  }

  protected sharedAcquire(): Promise<Slot | null> | undefined {
    return undefined;
  }

  async close(): Promise<void> {}
}
