import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";

/** A slot of a concurrency cap, held until released. */
export interface Slot {
  release(): Promise<void>;
}

/** A counter of `points` per `durationSeconds`, as rate-limiter-flexible counts it. */
export interface Counter {
  /** Takes `points` for `key`: the counter after, or `RateLimiterRes` rejected when there are not enough. */
  consume(key: string, points?: number): Promise<RateLimiterRes>;
  /** The counter of `key`, or null when it has none. */
  get(key: string): Promise<RateLimiterRes | null>;
  /** Blocks `key` for `seconds` (consumed past its points). */
  block(key: string, seconds: number): Promise<void>;
  /** Sets `key` to `points` consumed, for `seconds`. */
  set(key: string, points: number, seconds: number): Promise<void>;
  /** Gives `points` back to `key` (a token taken by a dispatch another limit then refused). */
  reward(key: string, points: number): Promise<void>;
  delete(key: string): Promise<void>;
}

/**
 * Where limits are counted (docs/flow-control.md §4): in this process (the embedded default), in Redis, or in
 * PostgreSQL. Counters are rate-limiter-flexible's; slots are the store's semaphore.
 */
export interface LimitBackend {
  readonly kind: "memory" | "redis" | "postgres";
  counter(name: string, points: number, durationSeconds: number): Counter;
  /**
   * A rate's counter: a token taken per dispatch, given back by `reward`. A shared store may hand a generous rate's
   * tokens out of blocks this instance leased (docs/flow-control.md §4); otherwise it is {@link counter}'s.
   */
  rate(name: string, points: number, durationSeconds: number): Counter;
  /** Takes one of `max` slots of `key` if one is free. */
  tryAcquire(key: string, max: number): Promise<Slot | null>;
  /** True while the shared store is out of reach and limits hold per instance. */
  readonly degraded: boolean;
  close(): Promise<void>;
}

/** A counter whose every call is made by `via` on the counter it picks (a shared one, a fallback, one opened late). */
export function delegatingCounter(via: <T>(call: (c: Counter) => Promise<T>) => Promise<T>): Counter {
  return {
    consume: (key, points) => via((c) => c.consume(key, points)),
    get: (key) => via((c) => c.get(key)),
    block: (key, seconds) => via((c) => c.block(key, seconds)),
    set: (key, points, seconds) => via((c) => c.set(key, points, seconds)),
    reward: (key, points) => via((c) => c.reward(key, points)),
    delete: (key) => via((c) => c.delete(key)),
  };
}

/** A rejection of `consume` for lack of points (not a store error). */
export const isRefusal = (e: unknown): e is RateLimiterRes => e instanceof RateLimiterRes;

/** A rate-limiter-flexible limiter as a {@link Counter}. */
export function counterOf(limiter: RateLimiterAbstract): Counter {
  return {
    consume: (key, points = 1) => limiter.consume(key, points),
    get: (key) => limiter.get(key),
    block: async (key, seconds) => void (await limiter.block(key, seconds)),
    set: async (key, points, seconds) => void (await limiter.set(key, points, seconds)),
    reward: async (key, points) => void (await limiter.reward(key, points)),
    delete: async (key) => void (await limiter.delete(key)),
  };
}

/** Counters and slots of one process: what the embedded default uses, and what a lost store degrades to. */
export class MemoryLimits implements LimitBackend {
  readonly kind = "memory";
  readonly degraded = false;
  private readonly counters = new Map<string, Counter>();
  private readonly held = new Map<string, number>();

  counter(name: string, points: number, durationSeconds: number): Counter {
    const id = `${name}\u0000${points}\u0000${durationSeconds}`;
    let c = this.counters.get(id);
    if (!c) {
      c = counterOf(new RateLimiterMemory({ keyPrefix: name, points, duration: durationSeconds }));
      this.counters.set(id, c);
    }
    return c;
  }

  rate(name: string, points: number, durationSeconds: number): Counter {
    return this.counter(name, points, durationSeconds);
  }

  async tryAcquire(key: string, max: number): Promise<Slot | null> {
    const n = this.held.get(key) ?? 0;
    if (n >= max) return null;
    this.held.set(key, n + 1);
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        const left = (this.held.get(key) ?? 1) - 1;
        if (left > 0) this.held.set(key, left);
        else this.held.delete(key);
      },
    };
  }

  async close(): Promise<void> {}
}
