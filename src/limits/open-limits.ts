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

  constructor(private readonly place: LimitsPlace) {}

  get kind(): LimitBackend["kind"] {
    return this.place.redisUrl ? "redis" : this.place.pool ? "postgres" : "memory";
  }

  get degraded(): boolean {
    return this.backend?.degraded ?? false;
  }

  counter(name: string, points: number, durationSeconds: number): Counter {
    // Once open, the backend's own counter: no hop through this wrapper on the hot path.
    if (this.backend) return this.backend.counter(name, points, durationSeconds);
    return delegatingCounter(async (call) => call((await this.open()).counter(name, points, durationSeconds)));
  }

  rate(name: string, points: number, durationSeconds: number): Counter {
    if (this.backend) return this.backend.rate(name, points, durationSeconds);
    return delegatingCounter(async (call) => call((await this.open()).rate(name, points, durationSeconds)));
  }

  tryAcquire(key: string, max: number): Promise<Slot | null> {
    if (this.backend) return this.backend.tryAcquire(key, max);
    return this.open().then((b) => b.tryAcquire(key, max));
  }

  async close(): Promise<void> {
    if (this.opened) await (await this.opened.catch(() => null))?.close();
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
    })();
    return this.opened;
  }
}

/** Redis limits once their connection is ready (or its wait is over). */
async function openRedis(...args: ConstructorParameters<typeof RedisLimits>): Promise<RedisLimits> {
  const limits = new RedisLimits(...args);
  await limits.ready();
  return limits;
}
