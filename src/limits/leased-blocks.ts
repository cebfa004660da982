import { RateLimiterRes } from "rate-limiter-flexible";
import { isRefusal, type Counter, type Slot } from "./limit-backend.ts";

/** A block is at most this fraction of a limit's share per live instance (docs/flow-control.md §4). */
const BLOCKS_PER_INSTANCE = 8;
/** How long a lease of slots none of which is in use here is kept before it goes back to the store. */
export const IDLE_LEASE_MS = 50;
/** Keys whose token blocks are kept at most (a per-key rate's callers). */
const MAX_BLOCKS_KEPT = 10_000;

/**
 * How many of a limit's tokens or slots an instance takes from the shared store at once: the limit divided by the
 * live instances and by {@link BLOCKS_PER_INSTANCE}, rounded down. At most 1 means no leasing: every dispatch asks
 * the store, exactly.
 */
export function blockSize(limit: number, instances: number): number {
  return Math.floor(limit / (Math.max(1, instances) * BLOCKS_PER_INSTANCE));
}

/** Tokens of one key this instance took from the store and has not handed out, valid until `until` (epoch ms). */
interface Block {
  left: number;
  until: number;
}

/**
 * A rate's tokens taken from the shared counter a block at a time and handed out here, so most dispatches touch the
 * store not at all. A block is of the store's window it was taken in (rate-limiter-flexible's fixed window, started by
 * its first consume): it is used only until that window's end as this instance measured it (the time the request was
 * sent plus the window's `msBeforeNext`, never later than the store's), its leftover tokens expiring with it. So the
 * store never admits more than its points in a window; at most a block per instance goes unused.
 */
export class TokenBlocks {
  private readonly blocks = new Map<string, Block>();
  /** Per key, the block being taken from the store: dispatches that found none wait for it instead of taking more. */
  private readonly leasing = new Map<string, Promise<void>>();

  constructor(
    /** The store's counter (its errors and refusals are passed on as they are). */
    private readonly store: Counter,
    /** The counter's points per window. */
    private readonly points: number,
    /** The block size now (0 or 1: each dispatch asks the store). */
    private readonly size: () => number,
  ) {}

  /** `n` tokens of `key` from this instance's block when it has them in its window; null otherwise. */
  take(key: string, n: number): RateLimiterRes | null {
    const b = this.blocks.get(key);
    if (!b || b.left < n) return null;
    const ms = b.until - Date.now();
    if (ms <= 0) {
      this.blocks.delete(key);
      return null;
    }
    b.left -= n;
    return new RateLimiterRes(b.left, ms, n, false);
  }

  /**
   * `n` tokens of `key` through the store: from a new block when the block size is over `n` (the rest kept here),
   * else `n` alone (the exact path). A refusal (`RateLimiterRes` rejected, with the store's `msBeforeNext`) when
   * the window has not enough left.
   */
  async refill(key: string, n: number): Promise<RateLimiterRes> {
    for (;;) {
      const k = this.size();
      if (k <= n) return this.store.consume(key, n);
      const mine = this.take(key, n);
      if (mine) return mine;
      let pending = this.leasing.get(key);
      if (!pending) {
        pending = this.lease(key, k).finally(() => this.leasing.delete(key));
        this.leasing.set(key, pending);
      }
      await pending;
    }
  }

  /** Gives `n` tokens of `key` back to this instance's block; false when it has none in its window (the store's). */
  giveBack(key: string, n: number): boolean {
    const b = this.blocks.get(key);
    if (!b || b.until <= Date.now()) return false;
    b.left += n;
    return true;
  }

  /** Forgets `key`'s block (its counter was deleted). */
  forget(key: string): void {
    this.blocks.delete(key);
  }

  /** Takes a block of `k` tokens of `key` from the store. */
  private async lease(key: string, k: number): Promise<void> {
    const sent = Date.now();
    let res: RateLimiterRes;
    let got = k;
    try {
      res = await this.store.consume(key, k);
    } catch (e) {
      if (!isRefusal(e)) throw e;
      // The store counted the whole block past its points: what it had left before is this instance's, the last
      // tokens of the window (admitted here, one by one, as any other instance would have).
      got = k - (e.consumedPoints - this.points);
      if (got <= 0) throw e;
      res = e;
    }
    if (this.blocks.size >= MAX_BLOCKS_KEPT) this.sweep();
    this.blocks.set(key, { left: got, until: sent + res.msBeforeNext });
  }

  /** Drops the blocks whose window is over, and every block when that is not enough (their tokens go unused). */
  private sweep(): void {
    const now = Date.now();
    for (const [key, b] of this.blocks) if (b.until <= now) this.blocks.delete(key);
    if (this.blocks.size >= MAX_BLOCKS_KEPT) this.blocks.clear();
  }
}

/** Slots of a concurrency cap the store holds for this instance, `permits` at once, refreshed while held. */
export interface Lease {
  readonly permits: number;
  /** True once the store no longer holds it (its refresh found it expired). */
  readonly lost: boolean;
  /** Gives the slots back to the store. Never throws. */
  release(): Promise<void>;
}

/** A lease held here: how many of its slots are in use, since when none is. */
interface Held {
  lease: Lease;
  inUse: number;
  idleSince: number;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * Slots of concurrency caps leased from the store several at once and handed out here. The store counts a lease's
 * slots as held, so a cap is never exceeded across instances; a lease goes back to the store once none of its slots
 * has been in use here for {@link IDLE_LEASE_MS}, so an idle instance does not keep slots another needs. Slots are
 * handed out from the busiest lease with room, so the others drain and go back.
 */
export class SlotLeases {
  private readonly held = new Map<string, Held[]>();
  /** Per key, the lease being taken from the store: dispatches that found no room wait for it. */
  private readonly leasing = new Map<string, Promise<boolean>>();

  /** A slot of `key` from a lease held here with room, or null. */
  take(key: string): Slot | null {
    let best: Held | undefined;
    for (const h of this.held.get(key) ?? [])
      if (!h.lease.lost && h.inUse < h.lease.permits && (!best || h.inUse > best.inUse)) best = h;
    return best ? this.slotOf(key, best) : null;
  }

  /**
   * A slot of `key` from a lease held here, or from a new one `acquire` takes from the store; null when the store has
   * not a lease's worth free.
   */
  async lease(key: string, acquire: () => Promise<Lease | null>): Promise<Slot | null> {
    for (;;) {
      const slot = this.take(key);
      if (slot) return slot;
      let pending = this.leasing.get(key);
      if (!pending) {
        pending = acquire()
          .then((lease) => (lease ? this.add(key, lease) : false))
          .finally(() => this.leasing.delete(key));
        this.leasing.set(key, pending);
      }
      if (!(await pending)) return null;
    }
  }

  /** Gives every lease back to the store (the backend closes). */
  async releaseAll(): Promise<void> {
    const all = [...this.held.values()].flat();
    this.held.clear();
    for (const h of all) clearTimeout(h.timer);
    await Promise.all(all.map((h) => h.lease.release()));
  }

  private add(key: string, lease: Lease): true {
    const list = this.held.get(key) ?? [];
    const held: Held = { lease, inUse: 0, idleSince: Date.now() };
    list.push(held);
    this.held.set(key, list);
    // A lease no slot is ever taken from (another freed room meanwhile) goes back once idle, as a used one does.
    held.timer = this.idleCheck(key, held, IDLE_LEASE_MS);
    return true;
  }

  private slotOf(key: string, h: Held): Slot {
    h.inUse++;
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        if (--h.inUse > 0) return;
        h.idleSince = Date.now();
        if (h.lease.lost) this.drop(key, h);
        else h.timer ??= this.idleCheck(key, h, IDLE_LEASE_MS);
      },
    };
  }

  /** In `ms`, gives `h` back when none of its slots has been in use since {@link IDLE_LEASE_MS}. */
  private idleCheck(key: string, h: Held, ms: number): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => {
      h.timer = undefined;
      if (h.inUse > 0) return;
      const left = h.idleSince + IDLE_LEASE_MS - Date.now();
      if (left > 0) h.timer = this.idleCheck(key, h, left);
      else this.drop(key, h);
    }, ms);
    timer.unref();
    return timer;
  }

  private drop(key: string, h: Held): void {
    clearTimeout(h.timer);
    const list = (this.held.get(key) ?? []).filter((x) => x !== h);
    if (list.length) this.held.set(key, list);
    else this.held.delete(key);
    void h.lease.release();
  }
}
