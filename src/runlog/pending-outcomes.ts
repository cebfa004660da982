import type { Logger } from "../log.ts";

/** The backoff of {@link PendingOutcomes}: 200 ms, doubling, at most `maxDelayMs`. */
export interface PendingOutcomeOptions {
  /** @default 200 */
  firstDelayMs?: number;
  /** Also how soon after the database returns a kept outcome is stored. @default 2000 */
  maxDelayMs?: number;
  /** How many outcomes may be kept at once (memory stays bounded in a long outage). @default 10000 */
  limit?: number;
}

/** How one kept outcome is stored and announced. */
export interface KeptOutcome<T, E> {
  /** The outcome as the run's callers are answered while it is kept. */
  value: T;
  /** Stores it; resolves with the stored event (this outcome's, or the one stored before it: fencing). */
  write: () => Promise<E>;
  /** Told the stored event once (to publish it). */
  onStored: (event: E) => void;
  /** The run's logger: one line at the first failure, one when stored. */
  log: Logger;
  /** Why the first write failed. */
  error: unknown;
}

interface Entry<T> {
  value: T;
  /** Settles once stored, or given up at shutdown. */
  settled: Promise<void>;
  /** Cuts the current backoff short (shutdown flush). */
  wake: () => void;
}

/**
 * The run outcomes this instance computed but could not store (docs/run-lifecycle.md §8,
 * "Outcomes after an outage"): each is kept in memory and written again with backoff until
 * the database takes it, so a run whose body ended never stays RUNNING on a live instance.
 * The write is the run log's finish job, which stores an outcome only while the run is
 * still RUNNING: when another instance failed the run meanwhile (this one looked gone),
 * the retry stores nothing and resolves with that first outcome. {@link closeBy} (shutdown)
 * retries at once and gives up at its deadline; {@link abandoned} names what was not stored.
 */
export class PendingOutcomes<T, E> {
  private readonly kept = new Map<string, Entry<T>>();
  private readonly firstDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly limit: number;
  private deadline: number | null = null;
  /** The runs whose outcome was still not stored at the shutdown deadline. */
  readonly abandoned: string[] = [];

  constructor(options: PendingOutcomeOptions = {}) {
    this.firstDelayMs = options.firstDelayMs ?? 200;
    this.maxDelayMs = options.maxDelayMs ?? 2000;
    this.limit = options.limit ?? 10_000;
  }

  /** True while {@link PendingOutcomeOptions.limit} outcomes are kept: the owner starts no new run. */
  get full(): boolean {
    return this.kept.size >= this.limit;
  }

  get size(): number {
    return this.kept.size;
  }

  /** The kept outcome of `runId`, while it is not stored. */
  get(runId: string): T | undefined {
    return this.kept.get(runId)?.value;
  }

  /** Resolves once `runId`'s kept outcome is stored or given up; at once when none is kept. */
  settled(runId: string): Promise<void> {
    return this.kept.get(runId)?.settled ?? Promise.resolve();
  }

  /**
   * Keeps `outcome` for `runId` and writes it again until it is stored (true; it may exceed the limit by the runs in
   * flight when it was reached).
   */
  keep(runId: string, outcome: KeptOutcome<T, E>): boolean {
    if (this.kept.has(runId)) return true;
    // The limit keeps new runs from starting (`full`); a run already admitted is always kept.
    let wake = () => {};
    const entry: Entry<T> = { value: outcome.value, settled: Promise.resolve(), wake: () => wake() };
    outcome.log.warn(
      "storing the run outcome failed; it is kept on this instance and stored once the database accepts it",
      { error: errorText(outcome.error) },
    );
    const since = Date.now();
    entry.settled = (async () => {
      for (let i = 0; ; i++) {
        if (this.pastDeadline()) return void this.abandoned.push(runId);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, this.delay(i));
          wake = () => (clearTimeout(t), resolve());
        });
        try {
          const event = await outcome.write();
          outcome.log.info("the kept run outcome was stored", {
            afterSeconds: Math.round((Date.now() - since) / 100) / 10,
            tries: i + 2,
          });
          outcome.onStored(event);
          return;
        } catch {
          // Logged once above; the next try follows the backoff.
        }
      }
    })().finally(() => this.kept.delete(runId));
    this.kept.set(runId, entry);
    return true;
  }

  /**
   * Shutdown: every kept outcome is written again at once, then with backoff, until
   * `deadline` (epoch ms); what is still not stored by then is given up and listed in
   * {@link abandoned}. Resolves when none is kept.
   */
  async closeBy(deadline: number): Promise<void> {
    this.deadline = deadline;
    for (const e of this.kept.values()) e.wake();
    await Promise.all([...this.kept.values()].map((e) => e.settled));
  }

  private pastDeadline(): boolean {
    return this.deadline !== null && Date.now() >= this.deadline;
  }

  private delay(i: number): number {
    const backoff = Math.min(this.firstDelayMs * 2 ** i, this.maxDelayMs);
    return this.deadline === null ? backoff : Math.max(0, Math.min(backoff, this.deadline - Date.now()));
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
