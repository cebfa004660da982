import { RateLimiterPostgres } from "rate-limiter-flexible";
import type pg from "pg";
import type { Logger } from "../log.ts";
import { counterOf, type Counter, type Slot } from "./limit-backend.ts";
import { PostgresSlots, type SlotsOptions } from "./postgres-slots.ts";
import { SharedLimits } from "./shared-limits.ts";

/** The table rate-limiter-flexible keeps its PostgreSQL counters in (it creates it). */
const TABLE = "tai42_limit_counters";

/**
 * Limits on PostgreSQL without Redis (docs/flow-control.md §4): rate-limiter-flexible's `RateLimiterPostgres`
 * counters (rates and breakers across instances) in {@link TABLE}, and concurrency slots leased in the table of
 * {@link PostgresSlots}, so caps hold across instances too.
 */
export class PostgresLimits extends SharedLimits {
  readonly kind = "postgres";
  private readonly slots: PostgresSlots;

  private constructor(
    private readonly pool: pg.Pool,
    log: Logger,
    instances: () => number,
    slots: SlotsOptions,
  ) {
    super(log, instances);
    this.slots = new PostgresSlots(pool, log, (e) => this.lost(e), slots);
  }

  /** Opens the backend once its counters' table exists (the slots' is made on their first use). */
  static async open(
    pool: pg.Pool,
    log: Logger,
    instances: () => number,
    slots: SlotsOptions = {},
  ): Promise<PostgresLimits> {
    await new Promise<void>((resolve, reject) => {
      new RateLimiterPostgres(
        { storeClient: pool, storeType: "pool", tableName: TABLE, points: 1, duration: 1 },
        (e?: unknown) => (e ? reject(e instanceof Error ? e : new Error(String(e))) : resolve()),
      );
    });
    return new PostgresLimits(pool, log, instances, slots);
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

  protected sharedAcquire(key: string, max: number): Promise<Slot | null> {
    return this.slots.tryAcquire(key, max);
  }

  async close(): Promise<void> {
    await this.slots.close();
  }
}
