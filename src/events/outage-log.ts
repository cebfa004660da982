import { Episode } from "../failure-log.ts";
import type { Logger } from "../log.ts";

/**
 * Logs an outage of a dependency (Redis) without flooding: the first error at once, then
 * at most one line per `everyMs` while it lasts (with how many errors were folded into
 * it), and one line when it ends. ioredis reports every reconnect attempt and every
 * failed publish, tens per second.
 */
export function outageLog(log: Logger, what: string, everyMs = 10_000, now: () => number = Date.now) {
  let episode: Episode | null = null;
  return {
    error(e: Error): void {
      const t = now();
      if (!episode) {
        episode = new Episode(t);
        return log.warn(`${what} is unreachable; events degrade until it returns`, { error: e.message });
      }
      if (!episode.failed(t, everyMs)) return;
      log.warn(`${what} is still unreachable`, {
        error: e.message,
        downForSeconds: episode.seconds(t),
        errorsSinceLastLine: episode.takeSuppressed() + 1,
      });
    },
    recovered(): void {
      if (!episode) return;
      log.info(`${what} is reachable again`, { downForSeconds: episode.seconds(now()) });
      episode = null;
    },
  };
}
