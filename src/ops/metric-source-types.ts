/** What a dispatched name is on the surface: a preset (any USER may write one), any other entry, or none. */
export type NameKind = "preset" | "registered" | null;

/** The subscriber kinds `tai42_subscribers` reports (bus topics a client can subscribe to). */
export const SUBSCRIBER_KINDS = ["runEvent", "agentEvent", "toolsChanged", "span"] as const;
export type SubscriberKind = (typeof SUBSCRIBER_KINDS)[number];

/** What the gauges read when Prometheus scrapes (each a cheap in-memory read). */
export interface MetricSources {
  /** What a dispatched name is on the surface (none: it counts as `UNKNOWN_TOOL` (metrics.ts)). */
  kind(tool: string): NameKind;
  inFlight(): { tool: number; agent: number };
  subscribers(kind: SubscriberKind): number;
  /** The PostgreSQL pool's connections; null on SQLite (one connection, no pool). */
  pool(): { total: number; idle: number; waiting: number } | null;
  /** Seconds since this instance last stored its heartbeat; null when it does not beat. */
  heartbeatAge(): number | null;
  /** Whether this instance's Redis connections are up; null without Redis. */
  redisConnected(): boolean | null;
  /** The stored surface version this instance serves. */
  surfaceVersion(): number;
  /** Reloads of the stored surface so far. */
  surfaceReloads(): number;
  /** Each stored connector and whether this instance is connected to it (docs/connectors.md §11). */
  connectors?(): Array<{ name: string; up: boolean }>;
  /** Flow control's refusals, waits, breakers and store (docs/flow-control.md §6). */
  limits?: LimitSources;
  /** Upstream calls by connector and outcome (`ok`, or the error kind). */
  connectorCalls?(): ReadonlyMap<string, ReadonlyMap<string, number>>;
}

/** What the flow-control metrics read (docs/flow-control.md §6): in-memory values of this instance. */
export interface LimitSources {
  /** Refusals so far, keyed `<tool>\0<reason>`. */
  limited(): ReadonlyMap<string, number>;
  /** Dispatches waiting for a concurrency slot, by the name whose cap they wait for. */
  waiting(): ReadonlyMap<string, number>;
  /** Names whose breaker this instance sees open. */
  openBreakers(): string[];
  /** True while limits hold per instance (their shared store is out of reach). */
  degraded(): boolean;
  /** Dispatches admission control refused so far. */
  shed(): number;
  /** Dispatches of the API doors open now. */
  open(): number;
}
