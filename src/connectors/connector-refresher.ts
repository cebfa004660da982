import type { Logger } from "../log.ts";
import type { ChangeCause } from "./connector-record.ts";

type Relist = (name: string, cause: Exclude<ChangeCause, "PUT" | "REFRESH">) => Promise<unknown>;

/**
 * The refreshes no caller asked for (docs/connectors.md §7): an upstream's "my tools
 * changed" (debounced per connector, cause LIST_CHANGED) and the periodic poll every
 * `TAI_CONNECTOR_REFRESH_SECONDS` (cause POLL, server duties only). Each stores a new
 * listing version only when the listing differs; a failure is logged, never thrown.
 */
export class ConnectorRefresher {
  private readonly pending = new Map<string, NodeJS.Timeout>();
  private poll: NodeJS.Timeout | null = null;
  private polling = false;
  private closed = false;

  constructor(
    private readonly relist: Relist,
    private readonly names: () => Promise<string[]>,
    private readonly log: Logger,
    private readonly debounceMs = 250,
  ) {}

  /** An upstream said its tool list changed: one refresh follows after the burst. */
  listChanged(name: string): void {
    if (this.closed) return;
    clearTimeout(this.pending.get(name));
    const timer = setTimeout(() => {
      this.pending.delete(name);
      this.run(name, "LIST_CHANGED");
    }, this.debounceMs);
    timer.unref();
    this.pending.set(name, timer);
  }

  /** Polls every connector every `everyMs` (0: never). */
  start(everyMs: number): void {
    if (everyMs <= 0 || this.poll) return;
    this.poll = setInterval(() => void this.pollOnce(), everyMs);
    this.poll.unref();
  }

  /** One poll of every stored connector, one at a time (a poll still running skips the next tick). */
  async pollOnce(): Promise<void> {
    if (this.polling || this.closed) return;
    this.polling = true;
    try {
      for (const name of await this.names()) if (!this.closed) await this.run(name, "POLL");
    } catch (e) {
      this.log.warn("polling the connectors failed", { error: (e as Error).message });
    } finally {
      this.polling = false;
    }
  }

  close(): void {
    this.closed = true;
    if (this.poll) clearInterval(this.poll);
    for (const t of this.pending.values()) clearTimeout(t);
    this.pending.clear();
  }

  private run(name: string, cause: "LIST_CHANGED" | "POLL"): Promise<void> {
    return this.relist(name, cause).then(
      () => {},
      (e: Error) => this.log.warn("refreshing a connector failed", { connector: name, cause, error: e.message }),
    );
  }
}
