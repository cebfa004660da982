import type { Logger } from "../log.ts";
import {
  delegatingCounter,
  isRefusal,
  MemoryLimits,
  type Counter,
  type LimitBackend,
  type Slot,
} from "./limit-backend.ts";
import { blockSize, SlotLeases, TokenBlocks, type Lease } from "./leased-blocks.ts";

/** While degraded, how often the shared store is tried again. */
const RETRY_STORE_MS = 1000;

/**
 * Limits counted in a store every instance shares (Redis, PostgreSQL: docs/flow-control.md §4). A store operation
 * that fails degrades every limit to this instance's share (`share()`: the limit divided by the live instances, at
 * least 1), in this process: logged once when it starts and once when it ends, and read by `tai42_limits_degraded`.
 * While degraded the store is tried again every {@link RETRY_STORE_MS}, never waited on in between.
 *
 * A generous rate's tokens and cap's slots are leased from the store in blocks ({@link blockSize}) and handed out
 * here, so the common dispatch does not touch the store; a small limit asks the store at every dispatch. While
 * degraded nothing is leased or handed out of a lease: the shares hold.
 */
export abstract class SharedLimits implements LimitBackend {
  abstract readonly kind: "redis" | "postgres";
  private readonly local = new MemoryLimits();
  private readonly counters = new Map<string, { counter: Counter; shared: Counter; local: () => Counter }>();
  private readonly rates = new Map<string, Counter>();
  private readonly leases = new SlotLeases();
  private lostAt: number | null = null;

  constructor(
    protected readonly log: Logger,
    /** The live instances, at least 1: a degraded limit is divided by it. */
    private readonly instances: () => number,
  ) {}

  /** The store's counter of `points` per `durationSeconds` named `name`. */
  protected abstract sharedCounter(name: string, points: number, durationSeconds: number): Counter;
  /** Takes one of `max` slots of `key` in the store; undefined: the store has no slots (each instance its share). */
  protected abstract sharedAcquire(key: string, max: number): Promise<Slot | null> | undefined;
  /** Takes `permits` of `max` slots of `key` in the store at once, or null when fewer are free; absent: no leases. */
  protected sharedLease?(key: string, max: number, permits: number): Promise<Lease | null>;
  abstract close(): Promise<void>;

  get degraded(): boolean {
    return this.lostAt !== null;
  }

  counter(name: string, points: number, durationSeconds: number): Counter {
    return this.parts(name, points, durationSeconds).counter;
  }

  rate(name: string, points: number, durationSeconds: number): Counter {
    const id = `${name}\u0000${points}\u0000${durationSeconds}`;
    let c = this.rates.get(id);
    if (!c) {
      const { counter: exact, shared, local } = this.parts(name, points, durationSeconds);
      const blocks = new TokenBlocks(shared, points, () => this.blockOf(points));
      c = {
        ...exact,
        consume: (key, n = 1) => {
          const mine = this.degraded ? null : blocks.take(key, n);
          if (mine) return Promise.resolve(mine);
          return this.either(
            () => blocks.refill(key, n),
            () => local().consume(key, n),
          );
        },
        reward: (key, n) => (blocks.giveBack(key, n) ? Promise.resolve() : exact.reward(key, n)),
        delete: (key) => (blocks.forget(key), exact.delete(key)),
      };
      this.rates.set(id, c);
    }
    return c;
  }

  tryAcquire(key: string, max: number): Promise<Slot | null> {
    const local = () => this.local.tryAcquire(key, this.share(max));
    const k = this.blockOf(max);
    const lease = this.sharedLease?.bind(this);
    if (k > 1 && lease) {
      const mine = this.leases.take(key);
      if (mine) return Promise.resolve(mine);
      // Too few free for a lease: the cap's last slots are taken one at a time, as a small cap's are.
      return this.either(
        async () =>
          (await this.leases.lease(key, () => lease(key, max, k))) ?? (await this.sharedAcquire(key, max)) ?? null,
        local,
      );
    }
    return this.either(() => this.sharedAcquire(key, max) ?? local(), local);
  }

  /** Gives back every lease of slots held here (the backend closes). */
  protected releaseLeases(): Promise<void> {
    return this.leases.releaseAll();
  }

  /** The block size of a limit now: none while degraded. */
  private blockOf(limit: number): number {
    return this.degraded ? 0 : blockSize(limit, this.instances());
  }

  /** The counter named `name` (the store's, or this instance's share while degraded), the store's, and the share's. */
  private parts(name: string, points: number, durationSeconds: number) {
    const id = `${name}\u0000${points}\u0000${durationSeconds}`;
    let p = this.counters.get(id);
    if (!p) {
      const shared = this.sharedCounter(name, points, durationSeconds);
      const local = () => this.local.counter(name, this.share(points), durationSeconds);
      const counter = delegatingCounter((call) =>
        this.either(
          () => call(shared),
          () => call(local()),
        ),
      );
      p = { counter, shared, local };
      this.counters.set(id, p);
    }
    return p;
  }

  /** A limit's share on this instance: divided by the live instances, at least 1. */
  protected share(n: number): number {
    return Math.max(1, Math.floor(n / Math.max(1, this.instances())));
  }

  /** `shared()` on the store, or `local()` while it is lost; a refusal for lack of points is passed on as it is. */
  private async either<T>(shared: () => Promise<T>, local: () => Promise<T>): Promise<T> {
    const started = Date.now();
    if (this.lostAt !== null && started - this.lostAt < RETRY_STORE_MS) return local();
    // Only an answer to a command sent after the loss says the store is back (one sent before may land after it).
    const back = () => (this.lostAt === null || started > this.lostAt) && this.found();
    try {
      const value = await shared();
      back();
      return value;
    } catch (e) {
      if (isRefusal(e)) {
        back();
        throw e;
      }
      this.lost(e);
      return local();
    }
  }

  protected lost(e?: unknown): void {
    if (this.lostAt === null)
      this.log.warn(
        `limits degrade to per-instance shares: ${this.kind === "redis" ? "Redis" : "PostgreSQL"} is out of reach`,
        {
          error: e instanceof Error ? e.message : e === undefined ? "connection error" : String(e),
        },
      );
    this.lostAt = Date.now();
  }

  private found(): void {
    if (this.lostAt === null) return;
    this.lostAt = null;
    this.log.info(`limits are shared again: ${this.kind === "redis" ? "Redis" : "PostgreSQL"} answers`);
  }
}
