import type { Bus } from "../events/bus.ts";
import type { KeyStore } from "../auth/keys.ts";
import { failureLog } from "../failure-log.ts";
import type { Logger } from "../log.ts";

/**
 * Every open stream held by an API key, on every door (graphql-ws sockets, SSE
 * subscriptions), so that a revoked key loses all of them (docs/security-model.md §1):
 * at once on the bus's `keyRevoked`, and by polling the keys that hold streams, for a
 * revocation made where no bus reaches this server (`tai keys revoke` without Redis).
 */
export class KeyStreams {
  private readonly byKey = new Map<string, Set<() => void>>();
  private readonly unlisten: () => void;
  private readonly timer: NodeJS.Timeout;
  private polling = false;

  /** A database outage fails every poll alike: one line per 10 s counting them. */
  private readonly failures: ReturnType<typeof failureLog>;

  constructor(
    bus: Bus,
    private readonly keys: Pick<KeyStore, "revokedAmong">,
    log: Logger,
    pollMs: number,
  ) {
    this.failures = failureLog(log);
    this.unlisten = bus.listen("keyRevoked", ({ keyId }) => this.revoked(keyId));
    this.timer = setInterval(() => void this.poll(), pollMs);
    this.timer.unref();
  }

  /** Registers a stream of `keyId`; `end` is called once if the key is revoked. Returns the release. */
  hold(keyId: string, end: () => void): () => void {
    const set = this.byKey.get(keyId) ?? new Set();
    set.add(end);
    this.byKey.set(keyId, set);
    return () => {
      set.delete(end);
      if (!set.size && this.byKey.get(keyId) === set) this.byKey.delete(keyId);
    };
  }

  /** Ends every stream of `keyId`. */
  revoked(keyId: string): void {
    const set = this.byKey.get(keyId);
    this.byKey.delete(keyId);
    for (const end of set ?? []) end();
  }

  /** Asks the database which held keys are revoked, and ends their streams. */
  async poll(): Promise<void> {
    const ids = [...this.byKey.keys()];
    if (!ids.length || this.polling) return;
    this.polling = true;
    try {
      for (const id of await this.keys.revokedAmong(ids)) this.revoked(id);
    } catch (e) {
      this.failures.failed("warn", "checking revoked keys failed", { error: (e as Error).message });
    } finally {
      this.polling = false;
    }
  }

  close(): void {
    this.unlisten();
    clearInterval(this.timer);
  }
}
