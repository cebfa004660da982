import type { Bus } from "../events/bus.ts";
import { boundedSubscription, ResumableStreamError, type SubscribeOptions } from "../events/subscription.ts";
import { failureLog, type FailureLog } from "../failure-log.ts";
import type { Logger } from "../log.ts";
import type { RunEventRecord } from "../dispatch/run-record.ts";
import { settledLast, writersEnded, type WriterList } from "./settle.ts";

/** How long the feed waits, idle with subscribers, before it reads the log for an event pub/sub lost. */
const POLL_MS = 2000;
/** How long an event held behind a gap waits for the missing one before the store is read. */
const GAP_GRACE_MS = 20;
/** The most events one read of a gap asks the store for (a long gap is read in pages). */
const FILL_PAGE = 1000;
/**
 * The most events held behind a gap the store could not be read for. Past it, the
 * subscribers are closed with {@link FeedGapError} (they resume from the store by
 * afterSeq) and the feed steps over the gap: memory stays bounded while the store is down.
 */
export const MAX_HELD_ON_FAILURE = 10_000;

/** Raised into the feed's subscribers when a gap could not be read and too much is held behind it. */
export class FeedGapError extends ResumableStreamError {
  constructor(readonly from: number) {
    super(
      `the run event feed could not read events from seq ${from} from the store, so the subscription was closed`,
      "EVENTS_UNAVAILABLE",
    );
    this.name = "FeedGapError";
  }
}

/** The lowest and highest of `seqs` (a loop: spreading a large map into Math.min overflows the stack). */
function lowest(seqs: Iterable<number>): number {
  let m = Infinity;
  for (const s of seqs) if (s < m) m = s;
  return m;
}
function highest(seqs: Iterable<number>): number {
  let m = -Infinity;
  for (const s of seqs) if (s > m) m = s;
  return m;
}

/** What the feed reads from the stored log (and, where seqs commit out of order, its registered writers). */
export interface RunEventSource extends WriterList {
  /** Every stored event with `after < seq ≤ upTo` (all runs), oldest first, at most `limit`. */
  between(after: number, upTo: number, limit: number): Promise<RunEventRecord[]>;
  /** The highest stored seq (0 when the log is empty). */
  lastSeq(): Promise<number>;
}

/**
 * This instance's view of the run event log, live and in seq order with no gap
 * (docs/run-lifecycle.md §9). Events reach the bus after their commit, but from several
 * writers (instances) and, through Redis, at most once and in any order across
 * publishers. The feed delivers them strictly by seq: an event that arrives ahead of a
 * missing one is held, and the gap is read from the store once for every subscriber.
 *
 * A gap is settled from the store, not merely read: seqs commit out of order on
 * PostgreSQL, so a seq missing from one read may be a writer's that has not committed
 * yet. The feed steps over a missing seq only once every event-log writer registered
 * when it looked has ended (`runlog/settle.ts`, docs/run-lifecycle.md §9); the feed's
 * position (`next`) therefore only ever passes a settled prefix of the log, and a replay
 * reads the store up to it ({@link OrderedRunEvents.settledThrough}).
 *
 * With no subscriber the feed is idle: it holds and reads nothing, and starts again from
 * a settled watermark when one subscribes.
 */
export class OrderedRunEvents {
  private next: number | null = null;
  private readonly held = new Map<number, RunEventRecord>();
  /** Each subscriber's delivery, and how to end it with an error. */
  private readonly listeners = new Map<(e: RunEventRecord) => void, (error: Error) => void>();
  private filling = false;
  private gapTimer: NodeJS.Timeout | null = null;
  private startAtFirstSeen = false;
  private readonly unlisten: () => void;
  private ready: Promise<void>;
  private readonly poll: NodeJS.Timeout;
  private lastDelivery = Date.now();
  /** Bumped at every (re)start: a read begun before it no longer applies. */
  private epoch = 0;
  private idle = false;
  /** Past every event seen before going idle; a restart never starts below it. */
  private seenThrough = 0;
  private closed = false;
  /**
   * During a database outage every poll and gap read fails alike: a few lines that count them (docs/security-model.md
   * §7).
   */
  private readonly failures: FailureLog;

  constructor(
    private readonly bus: Bus,
    private readonly source: RunEventSource,
    private readonly log: Logger,
  ) {
    this.failures = failureLog(log);
    this.unlisten = bus.listen("runEvent", (e) => this.receive(e), { counted: false });
    bus.countAlso("runEvent", () => this.listeners.size);
    this.ready = this.start();
    this.poll = setInterval(() => this.tick(), POLL_MS);
    this.poll.unref();
  }

  /** Live events from now on, in seq order, through a bounded queue (see `events/subscription.ts`). */
  subscribe(options: SubscribeOptions<RunEventRecord> = {}): AsyncIterableIterator<RunEventRecord> {
    return boundedSubscription(
      (deliver, fail) => {
        if (this.idle) this.ready = this.start();
        this.listeners.set(deliver, fail);
        return () => {
          // (Not when the feed closed its subscribers itself, `abandonGap`: it keeps its place then.)
          if (this.listeners.delete(deliver) && !this.listeners.size) this.goIdle();
        };
      },
      { ...options, onOverflow: () => this.bus.laggingClosed("runEvent") },
    );
  }

  /** Resolves once the feed knows where the log stands (its first read). */
  whenReady(): Promise<void> {
    return this.ready;
  }

  /**
   * The feed's settled position: every seq up to it is committed or will never exist, and the feed delivers only
   * events above it from now on. A replay reads the store up to here, never beyond (docs/run-lifecycle.md §9).
   */
  async settledThrough(): Promise<number> {
    await this.ready;
    return this.next === null ? Number.MAX_SAFE_INTEGER : this.next - 1;
  }

  close(): void {
    this.closed = true;
    this.unlisten();
    clearInterval(this.poll);
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.listeners.clear();
  }

  /** Starts (again) from the settled end of the log; events arriving meanwhile are held. */
  private start(): Promise<void> {
    const epoch = ++this.epoch;
    this.idle = false;
    this.next = null;
    this.startAtFirstSeen = false;
    const stale = () => this.closed || this.epoch !== epoch;
    return settledLast(this.source, stale).then(
      (last) => {
        // (The stored end is never below an event already published, so the larger is the settled end; a store that
        // says otherwise must not take the feed back over events it delivered.)
        if (!stale()) this.begin(Math.max(last + 1, this.seenThrough + 1));
      },
      (e: Error) => {
        if (stale()) return;
        this.log.warn("reading the run event log's last seq failed; starting from the first event seen", {
          error: e.message,
        });
        this.startAtFirstSeen = true;
        if (this.held.size) this.begin(lowest(this.held.keys()));
      },
    );
  }

  /** Nobody listens: nothing is held or read until someone subscribes (a new subscriber replays from the store). */
  private goIdle(): void {
    this.idle = true;
    this.epoch++;
    this.seenThrough = Math.max(this.seenThrough, (this.next ?? 1) - 1, this.held.size ? highest(this.held.keys()) : 0);
    this.next = null;
    this.held.clear();
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.gapTimer = null;
  }

  private begin(next: number): void {
    this.next = next;
    for (const seq of this.held.keys()) if (seq < next) this.held.delete(seq);
    this.drain();
  }

  private receive(e: RunEventRecord): void {
    if (this.idle) return;
    if (this.next === null && this.startAtFirstSeen) this.next = e.seq;
    if (this.next !== null && e.seq < this.next) return;
    this.held.set(e.seq, e);
    if (this.next !== null) this.drain();
  }

  /** Delivers what is contiguous; a held event past a gap starts one read of the gap. */
  private drain(): void {
    this.drainContiguous();
    if (!this.held.size || this.gapTimer) return;
    if (!this.listeners.size) {
      // Nobody is listening: no one needs the gap, so it is not read. (A subscriber that
      // joins later replays what it missed from the store, `dispatch/run-events.ts`.)
      this.goIdle();
      return;
    }
    // The missing event usually arrives a moment later from the other publisher; read
    // the store only if it has not.
    this.gapTimer = setTimeout(() => {
      this.gapTimer = null;
      void this.fill();
    }, GAP_GRACE_MS);
  }

  private drainContiguous(): void {
    if (this.next === null) return;
    for (let e = this.held.get(this.next); e; e = this.held.get(this.next)) {
      this.held.delete(this.next);
      this.next++;
      this.deliver(e);
    }
  }

  private deliver(e: RunEventRecord): void {
    this.lastDelivery = Date.now();
    for (const l of [...this.listeners.keys()]) l(e);
  }

  /** Settles the gap below the highest held event from the store (in pages), then delivers through it. */
  private async fill(): Promise<void> {
    if (this.filling || this.next === null) return;
    this.filling = true;
    const epoch = this.epoch;
    const stale = () => this.closed || this.epoch !== epoch;
    try {
      while (this.held.size && this.next !== null && !stale()) {
        const from: number = this.next;
        // Up to the highest held event, a page at a time: every seq in the range is read.
        const upTo = Math.min(highest(this.held.keys()), from + FILL_PAGE - 1);
        await this.settle(from, upTo, stale);
        if (stale()) return;
        // Whatever is still missing up to `upTo` will never exist: step over it.
        for (let next: number = this.next; next <= upTo; next++) {
          const e = this.held.get(next);
          this.held.delete(next);
          this.next = next + 1;
          if (e) this.deliver(e);
        }
        this.drainContiguous();
      }
    } catch (e) {
      this.failures.failed("warn", "reading a gap of the run event log failed; retrying at the next event or poll", {
        error: (e as Error).message,
      });
      if (this.held.size > MAX_HELD_ON_FAILURE) this.abandonGap();
    } finally {
      this.filling = false;
      // A restart while this read was under way left its gaps to this fill, which stopped: read them now.
      if (stale() && !this.closed && this.next !== null) this.drain();
    }
  }

  /**
   * Reads `from..upTo` (`upTo` is a held event, so committed) into the held events until each seq is held or known
   * never to exist: read; if something is missing, list the registered writers and read again; if something is still
   * missing, wait those writers out and read a last time (docs/run-lifecycle.md §9).
   */
  private async settle(from: number, upTo: number, stale: () => boolean): Promise<void> {
    const read = async () => {
      const stored = await this.source.between(from - 1, upTo, upTo - from + 1);
      // Events may have arrived (and been delivered) while the store was read.
      for (const e of stored) if (this.next !== null && e.seq >= this.next) this.held.set(e.seq, e);
    };
    const complete = () => {
      for (let s = Math.max(from, this.next ?? from); s <= upTo; s++) if (!this.held.has(s)) return false;
      return true;
    };
    await read();
    if (complete() || !this.source.writers || stale()) return;
    const writers = await this.source.writers();
    await read();
    if (complete() || !writers.length || stale()) return;
    await writersEnded(this.source, writers, stale);
    if (!stale()) await read();
  }

  /**
   * The store cannot be read and too much is held: every subscriber is closed with an
   * error naming the seq to replay from (so none sees a gap), and the feed moves on.
   */
  private abandonGap(): void {
    const error = new FeedGapError(this.next ?? 0);
    this.log.warn(
      "closing the run event feed's subscribers: a gap could not be read and too many events were held behind it",
      { from: this.next, held: this.held.size },
    );
    for (const fail of [...this.listeners.values()]) fail(error);
    this.listeners.clear();
    while (this.held.size) {
      this.next = lowest(this.held.keys());
      this.drainContiguous();
    }
  }

  /** With subscribers and nothing delivered for a while: reads what pub/sub may have lost. */
  private tick(): void {
    if (!this.listeners.size || this.next === null || this.filling || Date.now() - this.lastDelivery < POLL_MS) return;
    const from = this.next;
    this.source.between(from - 1, Number.MAX_SAFE_INTEGER, 500).then(
      (events) => {
        for (const e of events) this.receive(e);
      },
      (e: Error) => this.failures.failed("warn", "polling the run event log failed", { error: e.message }),
    );
  }
}
