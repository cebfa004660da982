import type pg from "pg";
import type { Logger } from "../log.ts";
import { delegatingCounter, MemoryLimits, type Counter, type LimitBackend, type Slot } from "./limit-backend.ts";
import { PostgresLimits } from "./postgres-backend.ts";
import { RedisLimits } from "./redis-backend.ts";

/** Where a deployment counts its limits. */
export interface LimitsPlace {
  redisUrl?: string;
  redisPrefix: string;
  /** The PostgreSQL pool, when the database is PostgreSQL. */
  pool?: pg.Pool;
  log: Logger;
  /** The live instances (a degraded limit's divisor). */
  instances: () => number;
}

/**
 * The limits' backend of a deployment (docs/flow-control.md §4): Redis when configured, else PostgreSQL, else this
 * process. Opened on first use, so a deployment that declares no limit opens no connection for them.
 */
export class DeploymentLimits implements LimitBackend {
  private opened: Promise<LimitBackend> | null = null;
  private backend: LimitBackend | null = null;
  /** While the backend cannot be opened (its store out of reach at first use): this instance's shares. */
  private readonly fallback = new MemoryLimits();
  private failedAt: number | null = null;

  constructor(private readonly place: LimitsPlace) {}

  get kind(): LimitBackend["kind"] {
    return this.place.redisUrl ? "redis" : this.place.pool ? "postgres" : "memory";
  }

  get degraded(): boolean {
    return this.backend?.degraded ?? this.failedAt !== null;
  }

  counter(name: string, points: number, durationSeconds: number): Counter {
    // Once open, the backend's own counter: no hop through this wrapper on the hot path.
    if (this.backend) return this.backend.counter(name, points, durationSeconds);
    return delegatingCounter(async (call) => {
      const b = await this.openOrNull();
      return call(
        b ? b.counter(name, points, durationSeconds) : this.fallback.counter(name, this.share(points), durationSeconds),
      );
    });
  }

  rate(name: string, points: number, durationSeconds: number): Counter {
    if (this.backend) return this.backend.rate(name, points, durationSeconds);
    return delegatingCounter(async (call) => {
      const b = await this.openOrNull();
      return call(
        b ? b.rate(name, points, durationSeconds) : this.fallback.rate(name, this.share(points), durationSeconds),
      );
    });
  }

  tryAcquire(key: string, max: number): Promise<Slot | null> {
    if (this.backend) return this.backend.tryAcquire(key, max);
    return this.openOrNull().then((b) => (b ? b.tryAcquire(key, max) : this.fallback.tryAcquire(key, this.share(max))));
  }

  async close(): Promise<void> {
    if (this.opened) await (await this.opened.catch(() => null))?.close();
  }

  /** A limit's share on this instance while the backend cannot be opened, as a lost store's (shared-limits.ts). */
  private share(n: number): number {
    return Math.max(1, Math.floor(n / Math.max(1, this.place.instances())));
  }

  /**
   * The backend, or null while it cannot be opened: a first use that fails (PostgreSQL's table creation in a blip)
   * degrades to this instance's shares, logged once, and is tried again a second later — never a limit failing for
   * good, never a dispatch waiting on it.
   */
  private async openOrNull(): Promise<LimitBackend | null> {
    if (this.failedAt !== null && Date.now() - this.failedAt < OPEN_RETRY_MS) return null;
    try {
      const b = await this.open();
      if (this.failedAt !== null) this.place.log.info("limits are shared again: their store could be opened");
      this.failedAt = null;
      return b;
    } catch (e) {
      if (this.failedAt === null)
        this.place.log.warn("limits degrade to per-instance shares: their store could not be opened", {
          error: e instanceof Error ? e.message : String(e),
        });
      this.failedAt = Date.now();
      return null;
    }
  }

  private open(): Promise<LimitBackend> {
    this.opened ??= (async () => {
      const { redisUrl, redisPrefix, pool, log, instances } = this.place;
      const b = redisUrl
        ? await openRedis(redisUrl, redisPrefix, log, instances)
        : pool
          ? await PostgresLimits.open(pool, log, instances)
          : new MemoryLimits();
      this.backend = b;
      return b;
    })().catch((e: unknown) => {
      // Not kept: the next use tries again.
      this.opened = null;
      throw e;
    });
    return this.opened;
  }
}

/** While the limits' store cannot be opened, how often it is tried again. */
const OPEN_RETRY_MS = 1000;

/** Redis limits once their connection is ready (or its wait is over). */
async function openRedis(...args: ConstructorParameters<typeof RedisLimits>): Promise<RedisLimits> {
  const limits = new RedisLimits(...args);
  await limits.ready();
  return limits;
}
