import type { LimitBackend, Slot } from "./limit-backend.ts";

/** The first and the longest pause between two tries of a full cap (a slot freed on another instance is not heard). */
const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 200;
/** Hold times remembered per cap, for the retry time of a refusal. */
const HOLDS_KEPT = 32;
/** Caps whose hold times are remembered at most. */
const MAX_CAPS_KEPT = 10_000;

/**
 * The dispatches of this instance waiting for a slot of a concurrency cap (docs/flow-control.md §3): first come,
 * first served per cap on this instance, the head trying the store (woken at once by a slot this instance frees,
 * else polling), every waiter bounded by its deadline and its signal.
 */
export class SlotQueue {
  /** Per cap, the tail of its line: the next waiter waits for it. */
  private readonly tails = new Map<string, Promise<void>>();
  private readonly wakers = new Map<string, Set<() => void>>();
  private readonly holds = new Map<string, number[]>();
  private readonly depth = new Map<string, number>();

  constructor(private readonly backend: LimitBackend) {}

  /** Waiting dispatches, by the name whose cap they wait for. */
  waiting(): ReadonlyMap<string, number> {
    return this.depth;
  }

  /**
   * A slot of `key` (one of `max`), waiting in line until `deadline` (epoch ms; `Infinity`: until `signal` aborts);
   * null past it. Counted under `name` while it waits.
   */
  async take(name: string, key: string, max: number, deadline: number, signal?: AbortSignal): Promise<Slot | null> {
    const first = await this.tryTake(key, max);
    if (first) return first;
    this.depth.set(name, (this.depth.get(name) ?? 0) + 1);
    const before = this.tails.get(key) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((r) => (done = r));
    const tail = before.then(() => mine);
    this.tails.set(key, tail);
    try {
      if (!(await this.until(before, deadline, signal))) return null;
      for (let pause = FIRST_POLL_MS; ; pause = Math.min(pause * 2, MAX_POLL_MS)) {
        const slot = await this.backend.tryAcquire(key, max);
        if (slot) return this.held(key, slot);
        const left = deadline - Date.now();
        if (left <= 0 || signal?.aborted) return null;
        await this.wake(key, Math.min(pause, left), signal);
      }
    } finally {
      done();
      if (this.tails.get(key) === tail) this.tails.delete(key);
      const n = (this.depth.get(name) ?? 1) - 1;
      if (n > 0) this.depth.set(name, n);
      else this.depth.delete(name);
    }
  }

  /** A slot of `key` free now, with no waiter of this instance before it in line; null otherwise (nothing waits). */
  async tryTake(key: string, max: number): Promise<Slot | null> {
    const slot = await this.backend.tryAcquire(key, max);
    if (slot && !this.tails.has(key)) return this.held(key, slot);
    if (slot) await slot.release();
    return null;
  }

  /** The median time a slot of `key` was held lately, in seconds (at least 1): a refused dispatch's retry time. */
  retryAfterSeconds(key: string): number {
    const h = [...(this.holds.get(key) ?? [])].sort((a, b) => a - b);
    return Math.max(1, Math.ceil((h[Math.floor(h.length / 2)] ?? 1000) / 1000));
  }

  /** A slot that, once released, wakes this instance's next waiter and records how long it was held. */
  private held(key: string, slot: Slot): Slot {
    const since = Date.now();
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        const holds = this.holds.get(key) ?? [];
        holds.push(Date.now() - since);
        if (holds.length > HOLDS_KEPT) holds.shift();
        // Bounded however many scopes callers make (a per-input cap's values).
        if (!this.holds.has(key) && this.holds.size >= MAX_CAPS_KEPT) this.holds.clear();
        this.holds.set(key, holds);
        await slot.release();
        for (const w of this.wakers.get(key) ?? []) w();
      },
    };
  }

  /** Whether `turn` came before `deadline` and the signal. */
  private async until(turn: Promise<void>, deadline: number, signal?: AbortSignal): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort = () => {};
    const late = new Promise<false>((r) => {
      if (Number.isFinite(deadline)) timer = setTimeout(() => r(false), Math.max(0, deadline - Date.now()));
      onAbort = () => r(false);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([turn.then(() => !signal?.aborted), late]);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Waits `ms`, or less when a slot of `key` is released here or `signal` aborts. */
  private wake(key: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const set = this.wakers.get(key) ?? new Set<() => void>();
      this.wakers.set(key, set);
      const end = () => {
        clearTimeout(timer);
        set.delete(end);
        if (!set.size) this.wakers.delete(key);
        signal?.removeEventListener("abort", end);
        resolve();
      };
      const timer = setTimeout(end, ms);
      set.add(end);
      signal?.addEventListener("abort", end, { once: true });
    });
  }
}
