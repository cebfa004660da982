/**
 * What {@link follow} reads a log through: the small port between the core and one kind of stream (tool run events,
 * an agent run's log). It names no transport: `live` may be the bus, the ordered run feed or a test's queue.
 */
export interface EventLogSource<T> {
  /** The live side, subscribed when this is called: what is published from then on, until `signal` aborts. */
  live(signal: AbortSignal): AsyncIterator<T>;
  /** The stored entries with a seq above `afterSeq`, oldest first, at most `limit` of them. */
  read(afterSeq: number, limit: number): Promise<T[]>;
  /** An entry's place in the log. */
  seq(e: T): number;
  /** True for the entry after which the log ends (a run's terminal); the follow ends right after delivering it. */
  isLast?(e: T): boolean;
  /**
   * Seqs of this stream go up by exactly 1 (an agent run's log): a live entry past the next one means a message was
   * lost, and the log is read to fill the gap. Without it (run events filtered by run or tool), any higher seq is next.
   */
  contiguous?: boolean;
  /** With the live side silent this long (ms), the log is read again (a lost pub/sub message, a Redis outage). */
  pollMs?: number;
  /**
   * Ask the live side for its next entry as soon as one arrives, before the consumer has taken it: one entry is held
   * beyond the live side's own buffer (an agent run's log, whose bounded subscription closes a lagging reader).
   */
  readAhead?: boolean;
  /** The most entries one read asks for; a full page is followed by the next. @default 500 */
  pageSize?: number;
}

/**
 * One log followed from a seq: the stored entries after it, then the live ones. `EventLog<T>` is the interface
 * {@link eventLog} returns; {@link follow} is its whole behaviour. Guarantees, whatever the source:
 * - the live side is subscribed before the log is read, so nothing falls between the two;
 * - every entry is delivered once, in seq order (a live entry already replayed is dropped);
 * - on a contiguous source, a gap in the live seqs is filled from the log, and a silent live side is polled;
 * - the follow ends after the terminal entry ({@link EventLogSource.isLast}), when `signal` aborts, or when the live
 *   side ends; an error of the live side or of a read (e.g. a `ResumableStreamError`) reaches the consumer.
 */
export interface EventLog<T> {
  /**
   * Entries with a seq above `afterSeq`, then live ones. With `afterSeq` null, nothing stored is replayed: live only.
   */
  follow(afterSeq: number | null, signal: AbortSignal): AsyncGenerator<T>;
}

/** The {@link EventLog} of `source`. */
export function eventLog<T>(source: EventLogSource<T>): EventLog<T> {
  return { follow: (afterSeq, signal) => follow(source, afterSeq, signal) };
}

const TICK = Symbol("tick");

/** The next live entry, or {@link TICK} when `pollMs` passes first (never without `pollMs`). */
async function nextOrTick<T>(pending: Promise<IteratorResult<T>>, pollMs?: number) {
  if (pollMs === undefined) return pending;
  let timer: NodeJS.Timeout | undefined;
  const tick = new Promise<typeof TICK>((r) => {
    timer = setTimeout(() => r(TICK), pollMs);
  });
  try {
    return await Promise.race([pending, tick]);
  } finally {
    clearTimeout(timer);
  }
}

/** Follows `source` from `afterSeq` (see {@link EventLog} for what it guarantees). */
export async function* follow<T>(
  source: EventLogSource<T>,
  afterSeq: number | null,
  signal: AbortSignal,
): AsyncGenerator<T> {
  const live = source.live(signal);
  const pageSize = source.pageSize ?? 500;
  let last = afterSeq ?? 0;
  /** Delivers what the log holds after `last` (in pages); true when it delivered the terminal or was aborted. */
  const fromLog = async function* (): AsyncGenerator<T, boolean> {
    for (;;) {
      const page = await source.read(last, pageSize);
      for (const e of page) {
        if (signal.aborted) return true;
        if (source.contiguous && source.seq(e) !== last + 1) return false;
        last = source.seq(e);
        yield e;
        if (source.isLast?.(e)) return true;
      }
      if (page.length < pageSize) return false;
    }
  };
  try {
    if (afterSeq !== null && (yield* fromLog())) return;
    let pending: Promise<IteratorResult<T>> | null = null;
    for (;;) {
      if (signal.aborted) return;
      pending ??= live.next();
      const r = await nextOrTick(pending, source.pollMs);
      if (r === TICK) {
        if (yield* fromLog()) return;
        continue;
      }
      pending = null;
      if (r.done) return;
      if (source.readAhead) pending = live.next();
      const e = r.value;
      const seq = source.seq(e);
      if (seq <= last) continue;
      if (source.contiguous) {
        if (seq > last + 1 && (yield* fromLog())) return;
        if (seq !== last + 1) continue;
      }
      last = seq;
      yield e;
      if (source.isLast?.(e)) return;
    }
  } finally {
    await live.return?.();
  }
}
