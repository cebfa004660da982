import type { Logger } from "../log.ts";
import {
  delegatingCounter,
  isRefusal,
  MemoryLimits,
  type Counter,
  type LimitBackend,
  type Slot,
} from "./limit-backend.ts";

/** While degraded, how often the shared store is tried again. */
const RETRY_STORE_MS = 1000;

/**
 * Limits counted in a store every instance shares (Redis, PostgreSQL: docs/flow-control.md §4). A store operation
 * that fails degrades every limit to this instance's share (`share()`: the limit divided by the live instances, at
 * least 1), in this process: logged once when it starts and once when it ends, and read by `tai42_limits_degraded`.
 * While degraded the store is tried again every {@link RETRY_STORE_MS}, never waited on in between.
 */
export abstract class SharedLimits implements LimitBackend {
  abstract readonly kind: "redis" | "postgres";
  private readonly local = new MemoryLimits();
  private readonly counters = new Map<string, Counter>();
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
  abstract close(): Promise<void>;

  get degraded(): boolean {
    return this.lostAt !== null;
  }

  counter(name: string, points: number, durationSeconds: number): Counter {
    const id = `${name}\u0000${points}\u0000${durationSeconds}`;
    let c = this.counters.get(id);
    if (!c) {
      const shared = this.sharedCounter(name, points, durationSeconds);
      const local = () => this.local.counter(name, this.share(points), durationSeconds);
      c = delegatingCounter((call) =>
        this.either(
          () => call(shared),
          () => call(local()),
        ),
      );
      this.counters.set(id, c);
    }
    return c;
  }

  tryAcquire(key: string, max: number): Promise<Slot | null> {
    const local = () => this.local.tryAcquire(key, this.share(max));
    return this.either(() => this.sharedAcquire(key, max) ?? local(), local);
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
