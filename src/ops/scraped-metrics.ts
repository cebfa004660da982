import { Counter, Gauge, type Registry } from "prom-client";
import type { MetricSources } from "./metric-source-types.ts";
import { SUBSCRIBER_KINDS } from "./metric-source-types.ts";

/** Reads the bound sources; null until they are bound (the gauges then read zero). */
export type ReadSources = <T>(fn: (s: MetricSources) => T) => T | null;

/** What this instance reports when `/metrics` is scraped: surface reloads, runs, subscribers, pool, heartbeat. */
export function registerRuntimeGauges(registers: Registry[], read: ReadSources): void {
  new Counter({
    name: "tai42_surface_reloads_total",
    help: "Reloads of the stored surface (local writes, bus messages, version checks).",
    registers,
    collect() {
      this.reset();
      this.inc(read((s) => s.surfaceReloads()) ?? 0);
    },
  });
  new Gauge({
    name: "tai42_runs_in_flight",
    help: "Runs executing on this instance, by kind.",
    labelNames: ["kind"],
    registers,
    collect() {
      const n = read((s) => s.inFlight()) ?? { tool: 0, agent: 0 };
      this.set({ kind: "tool" }, n.tool);
      this.set({ kind: "agent" }, n.agent);
    },
  });
  new Gauge({
    name: "tai42_subscribers",
    help: "Live subscribers on this instance, by kind.",
    labelNames: ["kind"],
    registers,
    collect() {
      for (const kind of SUBSCRIBER_KINDS) this.set({ kind }, read((s) => s.subscribers(kind)) ?? 0);
    },
  });
  new Gauge({
    name: "tai42_db_pool_connections",
    help: "PostgreSQL pool connections of this instance, by state (in_use, idle) and callers waiting for one (waiting).",
    labelNames: ["state"],
    registers,
    collect() {
      const p = read((s) => s.pool());
      if (!p) return;
      this.set({ state: "in_use" }, p.total - p.idle);
      this.set({ state: "idle" }, p.idle);
      this.set({ state: "waiting" }, p.waiting);
    },
  });
  new Gauge({
    name: "tai42_heartbeat_age_seconds",
    help: "Seconds since this instance last stored its heartbeat (past TAI_DEAD_AFTER_SECONDS the others declare it gone).",
    registers,
    collect() {
      const age = read((s) => s.heartbeatAge());
      if (age !== null) this.set(age);
    },
  });
  new Gauge({
    name: "tai42_redis_connected",
    help: "1 while this instance's Redis connections are up, else 0 (/ready then answers 200 degraded); absent without Redis.",
    registers,
    collect() {
      const up = read((s) => s.redisConnected());
      if (up !== null && up !== undefined) this.set(up ? 1 : 0);
    },
  });
  new Gauge({
    name: "tai42_surface_version",
    help: "The stored surface version (presets, manifests, skills) this instance serves.",
    registers,
    collect() {
      this.set(read((s) => s.surfaceVersion()) ?? 0);
    },
  });
}

/** The connector metrics read when `/metrics` is scraped: whether each upstream is up, and its calls by outcome. */
export function registerConnectorMetrics(registers: Registry[], read: ReadSources): void {
  new Gauge({
    name: "tai42_connector_up",
    help: "1 while this instance is connected to the connector's upstream, else 0 (not part of /ready).",
    labelNames: ["connector"],
    registers,
    collect() {
      this.reset();
      for (const c of read((s) => s.connectors?.()) ?? []) this.set({ connector: c.name }, c.up ? 1 : 0);
    },
  });
  new Counter({
    name: "tai42_connector_calls_total",
    help: "Calls to connector upstreams from this instance, by connector and outcome (ok, or the error kind).",
    labelNames: ["connector", "outcome"],
    registers,
    collect() {
      this.reset();
      for (const [connector, outcomes] of read((s) => s.connectorCalls?.()) ?? [])
        for (const [outcome, n] of outcomes) this.inc({ connector, outcome }, n);
    },
  });
}
