import type { Driver } from "../db/client.ts";
import type { Bus } from "../events/bus.ts";
import type { MetricSources } from "./metrics.ts";
import type { LimitSources } from "./metric-source-types.ts";

/** The runtime parts the gauges read (see {@link metricSources}). */
export interface MeasuredParts {
  surface: { base(name: string): { origin: string } | undefined };
  dispatcher: { runningCount: number };
  agents: { runningCount: number };
  bus: Bus;
  driver: Driver;
  /** Null for a runtime that does not beat (a one-shot command). */
  instances: { lastBeatAt: number | null } | null;
  stored: { version: number; loads: number };
  limits?: LimitSources;
  /** The stored connectors' names, and this instance's connections to them. */
  connectors?: {
    names(): string[];
    connections: {
      health(name: string): { state: string };
      callCounts(): ReadonlyMap<string, ReadonlyMap<string, number>>;
    };
  };
}

/** What `/metrics` reads from a runtime at each scrape: in-memory values only, no query. */
export function metricSources(p: MeasuredParts): MetricSources {
  return {
    kind: (tool) => {
      const entry = p.surface.base(tool);
      return entry === undefined ? null : entry.origin === "PRESET" ? "preset" : "registered";
    },
    inFlight: () => ({ tool: p.dispatcher.runningCount, agent: p.agents.runningCount }),
    subscribers: (kind) => p.bus.listenerCount(kind),
    pool: () =>
      p.driver.kind === "postgres"
        ? { total: p.driver.pool.totalCount, idle: p.driver.pool.idleCount, waiting: p.driver.pool.waitingCount }
        : null,
    heartbeatAge: () => (p.instances?.lastBeatAt != null ? (Date.now() - p.instances.lastBeatAt) / 1000 : null),
    redisConnected: () => p.bus.connected,
    surfaceVersion: () => p.stored.version,
    surfaceReloads: () => p.stored.loads,
    connectors: () =>
      (p.connectors?.names() ?? []).map((name) => ({
        name,
        up: p.connectors!.connections.health(name).state === "CONNECTED",
      })),
    connectorCalls: () => p.connectors?.connections.callCounts() ?? new Map(),
    ...(p.limits ? { limits: p.limits } : {}),
  };
}
