import type { Bus } from "../events/bus.ts";
import type { KeyStore } from "../auth/keys.ts";
import type { Caller, TokenSubject } from "../auth/roles.ts";
import { failureLog } from "../failure-log.ts";
import type { Logger } from "../log.ts";

/** Ends a held stream, saying why (a close reason, an error message): "the API key was revoked". */
export type EndStream = (reason: string) => void;

/** Registers a stream held by `caller`; `end` is called once if its key is revoked or its token ends. */
export type HoldCaller = (caller: Caller, end: EndStream) => () => void;

/**
 * Every open stream held by an API key or an access token, on every door (graphql-ws sockets, SSE subscriptions,
 * `/mcp` GET streams), so that a revoked key or an ended token loses all of them (docs/security-model.md §1):
 * - a key's: at once on the bus's `keyRevoked`, and by polling the keys that hold streams, for a revocation made where
 *   no bus reaches this server (`tai keys revoke` without Redis);
 * - a token's: at its expiry, and when its issuer says it is no longer active (introspection, every `pollSeconds`).
 */
export class KeyStreams {
  private readonly byKey = new Map<string, Set<EndStream>>();
  private readonly tokens = new Map<TokenSubject, Set<EndStream>>();
  private readonly unlisten: () => void;
  private readonly timers: NodeJS.Timeout[] = [];
  private polling = false;
  private checking = false;

  /** A database outage fails every poll alike: one line per 10 s counting them. */
  private readonly failures: ReturnType<typeof failureLog>;

  constructor(
    bus: Bus,
    private readonly keys: Pick<KeyStore, "revokedAmong">,
    log: Logger,
    pollMs: number,
    tokenPollMs?: number,
  ) {
    this.failures = failureLog(log);
    this.unlisten = bus.listen("keyRevoked", ({ keyId }) => this.revoked(keyId));
    this.timers.push(setInterval(() => void this.poll(), pollMs));
    if (tokenPollMs) this.timers.push(setInterval(() => void this.checkTokens(), tokenPollMs));
    for (const t of this.timers) t.unref();
  }

  /** Registers a stream of `caller` (a key or a token; an anonymous one holds nothing). Returns the release. */
  hold(caller: Caller, end: EndStream): () => void {
    if (caller.subject) {
      // At its expiry itself, not at the next poll (pollSeconds may be long); setTimeout holds at most 2^31-1 ms. Every
      // expired subject ends then, in the order they were held (a socket's own before its operations').
      const subject = caller.subject;
      const timer = setTimeout(
        () => this.endExpired(),
        Math.min(Math.max(0, subject.expiresAt - Date.now() + 5), 2 ** 31 - 1),
      );
      timer.unref();
      const release = add(this.tokens, subject, end);
      return () => {
        clearTimeout(timer);
        release();
      };
    }
    if (caller.keyId) return add(this.byKey, caller.keyId, end);
    return () => {};
  }

  /** Ends every stream of `keyId`. */
  revoked(keyId: string): void {
    const set = this.byKey.get(keyId);
    this.byKey.delete(keyId);
    for (const end of set ?? []) end("the API key was revoked");
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

  /** Ends the streams of expired tokens, and of those their issuer no longer holds active. */
  async checkTokens(): Promise<void> {
    if (!this.tokens.size || this.checking) return;
    this.checking = true;
    try {
      await Promise.all([...this.tokens.keys()].map((s) => this.checkToken(s)));
    } finally {
      this.checking = false;
    }
  }

  private async checkToken(subject: TokenSubject): Promise<void> {
    let reason: string | null = null;
    if (Date.now() >= subject.expiresAt) reason = "the access token expired";
    else
      try {
        if (!(await subject.active())) reason = "the access token was revoked";
      } catch (e) {
        this.failures.failed("warn", "checking access tokens at their issuer failed", { error: (e as Error).message });
      }
    if (reason !== null) this.endToken(subject, reason);
  }

  /** Ends the streams of every expired token, in the order they were held. */
  private endExpired(): void {
    for (const subject of [...this.tokens.keys()])
      if (Date.now() >= subject.expiresAt) this.endToken(subject, "the access token expired");
  }

  private endToken(subject: TokenSubject, reason: string): void {
    const set = this.tokens.get(subject);
    this.tokens.delete(subject);
    for (const end of set ?? []) end(reason);
  }

  close(): void {
    this.unlisten();
    for (const t of this.timers) clearInterval(t);
  }
}

function add<K>(map: Map<K, Set<EndStream>>, key: K, end: EndStream): () => void {
  const set = map.get(key) ?? new Set();
  set.add(end);
  map.set(key, set);
  return () => {
    set.delete(end);
    if (!set.size && map.get(key) === set) map.delete(key);
  };
}
