import type { Logger } from "./log.ts";

/**
 * One episode of a repeated failure (an outage of Redis, of the database): when it began,
 * when a line about it was last written, and how many failures were folded into no line
 * since. A flood of failures (every request during a database outage) is then logged as
 * a few lines that count it, not one line each (docs/security-model.md §7).
 */
export class Episode {
  readonly since: number;
  private lastLine: number;
  /** When the last failure of the episode happened. */
  lastFailure: number;
  /** Failures in the episode, the first included. */
  total = 1;
  /** Failures since the last line that got no line of their own. */
  suppressed = 0;

  constructor(t: number) {
    this.since = this.lastLine = this.lastFailure = t;
  }

  /**
   * Counts a failure at `t`; true when a line is due for it (`everyMs` after the last one), false when it is folded.
   */
  failed(t: number, everyMs: number): boolean {
    this.total++;
    this.lastFailure = t;
    if (t - this.lastLine < everyMs) {
      this.suppressed++;
      return false;
    }
    this.lastLine = t;
    return true;
  }

  /** How many failures were folded since the last line, and zero from now on. */
  takeSuppressed(): number {
    const n = this.suppressed;
    this.suppressed = 0;
    return n;
  }

  /** Whole seconds from the episode's start to `t`. */
  seconds(t: number): number {
    return Math.round((t - this.since) / 1000);
  }
}

/** A log of repeated failures by kind (see {@link failureLog}). */
export interface FailureLog {
  /**
   * One failure, to be logged as `message` with `fields` at `level`: at once when it
   * starts an episode of its kind (`kind`, by default the message), then at most once
   * per window (with how many lines were suppressed since the last one); the episode
   * ends, with one `info` line, once its kind has not failed for a window.
   */
  failed(level: "warn" | "error", message: string, fields: Record<string, unknown>, kind?: string): void;
}

/** Kinds tracked at once; further kinds share one episode per message (an attacker cannot grow the map). */
const MAX_KINDS = 100;

/**
 * A {@link FailureLog} writing to `log`: at most one line per kind of failure per
 * `everyMs` while the failures last, counting the suppressed ones, and one line when the
 * kind has been quiet for `everyMs` (the end of the outage, whatever the dependency).
 */
export function failureLog(log: Logger, everyMs = 10_000): FailureLog {
  const episodes = new Map<string, { episode: Episode; message: string }>();
  const end = (kind: string) => {
    const open = episodes.get(kind);
    if (!open) return;
    const quietFor = Date.now() - open.episode.lastFailure;
    if (quietFor < everyMs) return void setTimeout(end, everyMs - quietFor, kind).unref();
    episodes.delete(kind);
    const { episode } = open;
    log.info(`${open.message}: no more since ${everyMs / 1000} s`, {
      ...(kind === open.message ? {} : { kind }),
      failures: episode.total,
      lastedSeconds: episode.seconds(episode.lastFailure),
      suppressed: episode.takeSuppressed(),
    });
  };
  return {
    failed(level, message, fields, kind = message) {
      const key = episodes.has(kind) || episodes.size < MAX_KINDS ? kind : `other: ${message}`;
      const t = Date.now();
      const open = episodes.get(key);
      if (!open) {
        episodes.set(key, { episode: new Episode(t), message });
        setTimeout(end, everyMs, key).unref();
        return log[level](message, fields);
      }
      if (open.episode.failed(t, everyMs))
        log[level](message, {
          ...fields,
          failingForSeconds: open.episode.seconds(t),
          suppressed: open.episode.takeSuppressed(),
        });
    },
  };
}

const shared = new WeakMap<object, FailureLog>();

/**
 * The one {@link failureLog} of `owner` (a runtime), for doors that are built per request and so cannot hold one
 * themselves.
 */
export function failureLogOf(owner: object, log: Logger): FailureLog {
  return shared.get(owner) ?? shared.set(owner, failureLog(log)).get(owner)!;
}
