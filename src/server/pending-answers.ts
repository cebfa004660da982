import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * The HTTP requests this server has not answered yet, event streams (SSE) aside: a graceful stop keeps the listener
 * open until they are answered (`serve.ts`), so a balancer's check does not find it closed and end the connections of
 * callers about to get their answers (haproxy's `on-marked-down shutdown-sessions`, docs/deploy.md §3).
 */
export class PendingAnswers {
  private count = 0;
  private waiters = new Set<() => void>();

  /** Counts `req` until its response closes (answered, or its connection gone); an event stream is not counted. */
  track(req: IncomingMessage, res: ServerResponse): void {
    if (req.headers.accept?.includes("text/event-stream")) return;
    this.count++;
    res.once("close", () => {
      if (--this.count === 0) for (const w of this.waiters) w();
    });
  }

  /** Resolves once no counted request is unanswered, or after `timeoutMs`. */
  settled(timeoutMs: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.waiters.add(done);
    });
  }
}
