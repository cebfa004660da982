import type { Logger } from "../log.ts";

/**
 * Logs an outage of a dependency (Redis) without flooding: the first error at once, then
 * at most one line per `everyMs` while it lasts (with how many errors were folded into
 * it), and one line when it ends. ioredis reports every reconnect attempt and every
 * failed publish, tens per second.
 */
export function outageLog(log: Logger, what: string, everyMs = 10_000, now: () => number = Date.now) {
  let since: number | null = null;
  let lastLine = 0;
  let folded = 0;
  return {
    error(e: Error): void {
      const t = now();
      if (since === null) {
        since = lastLine = t;
        folded = 0;
        return log.warn(`${what} is unreachable; events degrade until it returns`, { error: e.message });
      }
      if (t - lastLine < everyMs) return void folded++;
      log.warn(`${what} is still unreachable`, { error: e.message, downForSeconds: Math.round((t - since) / 1000), errorsSinceLastLine: folded + 1 });
      lastLine = t;
      folded = 0;
    },
    recovered(): void {
      if (since === null) return;
      log.info(`${what} is reachable again`, { downForSeconds: Math.round((now() - since) / 1000) });
      since = null;
    },
  };
}
