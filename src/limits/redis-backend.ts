import { createRequire } from "node:module";
import { RateLimiterRedis } from "rate-limiter-flexible";
import type { Redis } from "ioredis";
import type { Logger } from "../log.ts";
import type { Lease } from "./leased-blocks.ts";
import { counterOf, type Counter, type Slot } from "./limit-backend.ts";
import { SharedLimits } from "./shared-limits.ts";

const require = createRequire(import.meta.url);

/** How long one limits command may take before Redis counts as lost (a silent link must not hang a dispatch). */
const COMMAND_MS = 1000;
/** A slot's lease: refreshed while its body runs, so a dead instance's slots come back within it. */
const LEASE_MS = 30_000;

type MultiSemaphore = import("redis-semaphore").MultiSemaphore;
let guarded:
  (new (...args: ConstructorParameters<typeof import("redis-semaphore").MultiSemaphore>) => MultiSemaphore) | null =
  null;

/**
 * redis-semaphore's `MultiSemaphore` (several slots in one sorted-set entry set, leased and refreshed together) whose
 * refresh Redis did not answer counts as still held: the next refresh tells (a lease expired meanwhile is then lost).
 * The library's own would leave that refresh's error unhandled.
 */
function leasedSemaphore() {
  if (guarded) return guarded;
  const { MultiSemaphore } = require("redis-semaphore") as typeof import("redis-semaphore");
  guarded = class extends MultiSemaphore {
    protected override async _refresh(): Promise<boolean> {
      return super._refresh().catch(() => true);
    }
  };
  return guarded;
}

/**
 * Limits in Redis: rate-limiter-flexible's `RateLimiterRedis` counters and redis-semaphore's leased semaphore, on a
 * connection of their own that never queues a command while Redis is out of reach and bounds each by
 * {@link COMMAND_MS}.
 */
export class RedisLimits extends SharedLimits {
  readonly kind = "redis";
  private readonly client: Redis;

  constructor(
    url: string,
    private readonly prefix: string,
    log: Logger,
    instances: () => number,
    /** How long a lease of slots lives unrefreshed (a dead instance's slots come back within it). */
    private readonly leaseMs = LEASE_MS,
  ) {
    super(log, instances);
    const { Redis } = require("ioredis") as typeof import("ioredis");
    // Auto-pipelining sends the commands of concurrent dispatches issued in one tick as one write (ioredis).
    this.client = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_MS,
      enableAutoPipelining: true,
    });
    this.client.on("error", (e: unknown) => this.lost(e));
  }

  /** Resolves once connected, or after `ms` (the limits then start degraded, and recover by themselves). */
  ready(ms = 2 * COMMAND_MS): Promise<void> {
    if (this.client.status === "ready") return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.client.off("ready", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.client.once("ready", done);
    });
  }

  protected sharedCounter(name: string, points: number, durationSeconds: number): Counter {
    return counterOf(
      new RateLimiterRedis({
        storeClient: this.client,
        keyPrefix: `${this.prefix}limits:${name}`,
        points,
        duration: durationSeconds,
        rejectIfRedisNotReady: true,
      }),
    );
  }

  protected async sharedAcquire(key: string, max: number): Promise<Slot | null> {
    const lease = await this.sharedLease(key, max, 1);
    return lease && { release: () => lease.release() };
  }

  protected override async sharedLease(key: string, max: number, permits: number): Promise<Lease | null> {
    const Leased = leasedSemaphore();
    // The same sorted set for one slot and for several: both count against `max`.
    const semaphore = new Leased(this.client, `${this.prefix}limits:slots:${key}`, max, permits, {
      lockTimeout: this.leaseMs,
      // Three refreshes per lease: one Redis does not answer in time leaves two before the lease expires.
      refreshInterval: Math.floor(this.leaseMs / 3),
      acquireAttemptsLimit: 1,
      onLockLost: () => this.log.warn("a concurrency slot's lease was lost (Redis was out of reach)", { key, permits }),
    });
    if (!(await semaphore.tryAcquire())) return null;
    return {
      permits,
      get lost() {
        return !semaphore.isAcquired;
      },
      release: () => semaphore.release().catch(() => {}),
    };
  }

  async close(): Promise<void> {
    await this.releaseLeases();
    this.client.disconnect();
  }
}
