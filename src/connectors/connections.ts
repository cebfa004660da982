import type { ExpiringStore } from "../db/expiring-store.ts";
import { isToolError, ToolError } from "../errors.ts";
import type { Bus } from "../events/bus.ts";
import type { Logger } from "../log.ts";
import type { Secrets } from "../secrets/secrets.ts";
import type {
  ConnectorConnection,
  ConnectorHealth,
  ConnectorKind,
  UpstreamCall,
  UpstreamTool,
} from "./connector-kind.ts";
import { connectionFetch } from "./connection-fetch.ts";
import type { KindCatalog } from "./kind-catalog.ts";

/** What a connection is opened from: a stored connector, or a put's input before it is stored. */
export interface ConnectionTarget {
  name: string;
  kind: string;
  settings: Record<string, unknown>;
  /** The stored `version` (0: not stored yet). */
  version: number;
}

export interface ConnectionDeps {
  kinds: KindCatalog;
  secrets: Secrets;
  log: Logger;
  store: ExpiringStore;
  bus: Bus;
  instanceId: string;
  /** Server duties: runs here can park, so elicitation is advertised. */
  canPark: boolean;
  /** Milliseconds of the first reconnect delay, doubling to `maxBackoffMs`. @default 500 */
  backoffMs?: number;
  maxBackoffMs?: number;
}

interface Slot {
  target: ConnectionTarget;
  conn: ConnectorConnection | null;
  opening: Promise<ConnectorConnection> | null;
  health: ConnectorHealth;
  retry: NodeJS.Timeout | null;
  delay: number;
}

const idle = (): ConnectorHealth => ({ state: "IDLE", since: new Date().toISOString(), failures: 0 });

/**
 * One connection per connector per instance (docs/connectors.md §11): opened on first
 * use, reopened when the stored version changes, reconnected with backoff after it drops,
 * closed on delete and at runtime close. A call while the upstream is down tries one
 * connect bounded by its timeout, else fails UNAVAILABLE. Messages never carry a
 * resolved setting: every failure text is scrubbed of the runtime's secrets.
 */
export class ConnectionManager {
  private readonly slots = new Map<string, Slot>();
  private readonly calls = new Map<string, Map<string, number>>();
  private closed = false;
  /** Told when an upstream says its tool list changed (the service refreshes). */
  onToolsChanged: (name: string) => void = () => {};

  constructor(private readonly deps: ConnectionDeps) {}

  /** This instance's connection state of a connector. */
  health(name: string): ConnectorHealth {
    return { ...(this.slots.get(name)?.health ?? idle()) };
  }

  /** `text` with every secret this runtime resolved replaced (for messages that quote an upstream). */
  scrubText(text: string): string {
    return this.deps.secrets.scrubText(text);
  }

  /** Calls by connector and outcome (`ok`, or the error kind), for `/metrics`. */
  callCounts(): ReadonlyMap<string, ReadonlyMap<string, number>> {
    return this.calls;
  }

  /** Connectors with a slot, and whether each is connected (for `/metrics`). */
  states(): Array<{ name: string; up: boolean }> {
    return [...this.slots.entries()].map(([name, s]) => ({ name, up: s.health.state === "CONNECTED" }));
  }

  /** Applies what is stored: a deleted connector's connection closes, a changed one's is reopened at its next use. */
  sync(stored: readonly ConnectionTarget[]): void {
    const byName = new Map(stored.map((t) => [t.name, t]));
    for (const [name, slot] of this.slots) {
      const now = byName.get(name);
      if (!now || now.version !== slot.target.version) this.drop(name);
      else slot.target = now;
    }
  }

  /**
   * Opens a connection to `target` outside the manager (a put's probe, before anything
   * is stored). Throws a `ToolError` whose message is scrubbed of resolved values.
   */
  async open(
    target: ConnectionTarget,
    hooks: { toolsChanged(): void; lost(e: Error): void } = { toolsChanged() {}, lost() {} },
  ): Promise<ConnectorConnection> {
    const kind = this.kindOf(target);
    const owner = `connector "${target.name}"`;
    try {
      const settings = this.deps.secrets.resolve(target.settings, owner) as Record<string, unknown>;
      return await kind.connect({
        name: target.name,
        settings,
        log: this.deps.log.child({ connector: target.name }),
        fetch: connectionFetch(kind, settings),
        toolsChanged: () => hooks.toolsChanged(),
        lost: (e) => hooks.lost(e),
        canPark: this.deps.canPark,
        store: this.deps.store,
        bus: this.deps.bus,
        instanceId: this.deps.instanceId,
      });
    } catch (e) {
      throw this.scrubbed(e, owner);
    }
  }

  /**
   * Opens a connection a put will {@link adopt} once stored: its `lost` and `toolsChanged`
   * reach the manager from then on (never before: a refused put's probe says nothing).
   */
  async probe(target: ConnectionTarget): Promise<ConnectorConnection> {
    let conn: ConnectorConnection | null = null;
    const mine = () => {
      const slot = this.slots.get(target.name);
      return slot && conn && slot.conn === conn ? slot : null;
    };
    conn = await this.open(target, {
      toolsChanged: () => {
        if (mine()) this.onToolsChanged(target.name);
      },
      lost: (e) => {
        const slot = mine();
        if (slot) this.lost(slot, e);
      },
    });
    return conn;
  }

  /** Installs a connection a put opened as the stored connector's (no second connect). */
  adopt(target: ConnectionTarget, conn: ConnectorConnection): void {
    if (this.closed) return void conn.close();
    this.drop(target.name);
    const slot = this.slot(target);
    slot.conn = conn;
    this.enter(slot, "CONNECTED");
    slot.health.failures = 0;
  }

  /** The connector's live connection, opening it (bounded by `boundMs`) when there is none. */
  async connection(target: ConnectionTarget, boundMs: number): Promise<ConnectorConnection> {
    if (this.closed)
      throw new ToolError(`connector "${target.name}" is unavailable: the server is shutting down`, {
        kind: "UNAVAILABLE",
      });
    let slot = this.slots.get(target.name);
    if (slot && slot.target.version !== target.version) {
      this.drop(target.name);
      slot = undefined;
    }
    slot ??= this.slot(target);
    if (slot.conn) return slot.conn;
    const opening = slot.opening ?? this.connect(slot);
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ToolError(`connector "${target.name}" did not connect within ${Math.round(boundMs / 1000)} s`, {
              kind: "UNAVAILABLE",
            }),
          ),
        boundMs,
      );
    });
    try {
      return await Promise.race([opening, bound]);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      throw new ToolError(
        `connector "${target.name}" is unavailable: ${message.replace(new RegExp(`^connector "${escape(target.name)}": `), "")}`,
        { kind: "UNAVAILABLE" },
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /** Calls an upstream tool on the connector's connection. */
  async call(
    target: ConnectionTarget,
    tool: UpstreamTool,
    input: Record<string, unknown>,
    call: UpstreamCall,
  ): Promise<unknown> {
    return this.count(target.name, async () => (await this.connection(target, call.timeoutMs)).call(tool, input, call));
  }

  /** Continues a parked upstream call. */
  async resume(
    target: ConnectionTarget,
    tool: UpstreamTool,
    state: unknown,
    answers: Record<string, unknown>,
    call: UpstreamCall,
  ): Promise<unknown> {
    return this.count(target.name, async () => {
      const conn = await this.connection(target, call.timeoutMs);
      if (!conn.resume)
        throw new ToolError(`connector "${target.name}": its kind cannot resume a parked call`, {
          kind: "INTERNAL",
          retryable: false,
        });
      return conn.resume(tool, state, answers, call);
    });
  }

  /** Closes every connection (after the runs drained). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.slots.keys()].map((n) => this.drop(n)));
  }

  private async count<T>(name: string, run: () => Promise<T>): Promise<T> {
    const tally = (outcome: string) => {
      const m = this.calls.get(name) ?? new Map<string, number>();
      m.set(outcome, (m.get(outcome) ?? 0) + 1);
      this.calls.set(name, m);
    };
    try {
      const value = await run();
      tally("ok");
      return value;
    } catch (e) {
      tally(isToolError(e) ? e.kind : "INTERNAL");
      throw e;
    }
  }

  private slot(target: ConnectionTarget): Slot {
    const slot: Slot = {
      target,
      conn: null,
      opening: null,
      health: idle(),
      retry: null,
      delay: this.deps.backoffMs ?? 500,
    };
    this.slots.set(target.name, slot);
    return slot;
  }

  private connect(slot: Slot): Promise<ConnectorConnection> {
    this.enter(slot, "CONNECTING");
    const opening = this.open(slot.target, {
      toolsChanged: () => {
        if (this.slots.get(slot.target.name) === slot) this.onToolsChanged(slot.target.name);
      },
      lost: (e) => this.lost(slot, e),
    }).then(
      (conn) => {
        if (this.slots.get(slot.target.name) !== slot || this.closed) {
          void conn.close();
          throw new ToolError(`connector "${slot.target.name}" changed while it connected`, { kind: "UNAVAILABLE" });
        }
        slot.conn = conn;
        slot.opening = null;
        slot.delay = this.deps.backoffMs ?? 500;
        slot.health = { state: "CONNECTED", since: new Date().toISOString(), failures: 0 };
        return conn;
      },
      (e: Error) => {
        slot.opening = null;
        if (this.slots.get(slot.target.name) === slot) {
          slot.health = {
            state: "DOWN",
            since: new Date().toISOString(),
            lastError: e.message,
            failures: slot.health.failures + 1,
          };
          this.deps.log.warn("a connector could not connect", {
            connector: slot.target.name,
            error: e.message,
            failures: slot.health.failures,
          });
          this.schedule(slot);
        }
        throw e;
      },
    );
    opening.catch(() => {});
    slot.opening = opening;
    return opening;
  }

  private lost(slot: Slot, error: Error): void {
    if (this.slots.get(slot.target.name) !== slot || this.closed) return;
    const message = this.deps.secrets.scrubText(error.message);
    const conn = slot.conn;
    slot.conn = null;
    void conn?.close();
    slot.health = {
      state: "DOWN",
      since: new Date().toISOString(),
      lastError: message,
      failures: slot.health.failures,
    };
    this.deps.log.warn("a connector's connection dropped; reconnecting", {
      connector: slot.target.name,
      error: message,
    });
    this.schedule(slot);
  }

  /** The next reconnect: 0.5 s doubling to 30 s (docs/connectors.md §11). */
  private schedule(slot: Slot): void {
    if (slot.retry || this.closed) return;
    const delay = slot.delay;
    slot.delay = Math.min(delay * 2, this.deps.maxBackoffMs ?? 30_000);
    slot.retry = setTimeout(() => {
      slot.retry = null;
      if (this.slots.get(slot.target.name) === slot && !slot.conn && !slot.opening) this.connect(slot).catch(() => {});
    }, delay);
    slot.retry.unref();
  }

  private enter(slot: Slot, state: ConnectorHealth["state"]): void {
    slot.health = { ...slot.health, state, since: new Date().toISOString() };
  }

  private async drop(name: string): Promise<void> {
    const slot = this.slots.get(name);
    if (!slot) return;
    this.slots.delete(name);
    if (slot.retry) clearTimeout(slot.retry);
    const conn = slot.conn ?? (await slot.opening?.catch(() => null));
    await conn?.close().catch(() => {});
  }

  private kindOf(target: ConnectionTarget): ConnectorKind {
    const kind = this.deps.kinds.get(target.kind);
    if (!kind)
      throw new ToolError(`connector "${target.name}": its kind "${target.kind}" is not registered on this server`, {
        kind: "UNAVAILABLE",
        retryable: false,
      });
    return kind;
  }

  private scrubbed(e: unknown, owner: string): ToolError {
    const message = this.deps.secrets.scrubText(e instanceof Error ? e.message : String(e));
    const kind = isToolError(e) ? e.kind : "UNAVAILABLE";
    return new ToolError(message.startsWith(owner) ? message : `${owner}: ${message}`, {
      kind,
      retryable: isToolError(e) ? e.retryable : undefined,
    });
  }
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
