import { Counter, Gauge, type Registry } from "prom-client";
import type { ReadSources } from "./scraped-metrics.ts";

/**
 * The flow-control metrics, read when `/metrics` is scraped. Their `tool` label takes only names that declare limits
 * (an author's or an ADMIN's), and `(any)` for admission control's refusals: callers cannot grow it.
 */
export function registerLimitMetrics(registers: Registry[], read: ReadSources): void {
  new Counter({
    name: "tai42_limited_total",
    help: "Dispatches a limit refused on this instance, by tool and reason (concurrency, rate, breaker, admission).",
    labelNames: ["tool", "reason"],
    registers,
    collect() {
      this.reset();
      for (const [id, n] of read((s) => s.limits?.limited()) ?? []) {
        const [tool, reason] = id.split("\u0000");
        this.inc({ tool, reason }, n);
      }
      const shed = read((s) => s.limits?.shed()) ?? 0;
      if (shed) this.inc({ tool: "(any)", reason: "admission" }, shed);
    },
  });
  new Gauge({
    name: "tai42_queue_depth",
    help: "Dispatches on this instance waiting for a concurrency slot, by the tool whose cap they wait for.",
    labelNames: ["tool"],
    registers,
    collect() {
      this.reset();
      for (const [tool, n] of read((s) => s.limits?.waiting()) ?? []) this.set({ tool }, n);
    },
  });
  new Gauge({
    name: "tai42_breaker_open",
    help: "1 for each tool whose circuit breaker this instance sees open.",
    labelNames: ["tool"],
    registers,
    collect() {
      this.reset();
      for (const tool of read((s) => s.limits?.openBreakers()) ?? []) this.set({ tool }, 1);
    },
  });
  new Gauge({
    name: "tai42_dispatches_open",
    help: "Dispatches of the API doors open on this instance (executing or waiting): TAI_MAX_IN_FLIGHT bounds them.",
    registers,
    collect() {
      this.set(read((s) => s.limits?.open()) ?? 0);
    },
  });
  new Gauge({
    name: "tai42_limits_degraded",
    help: "1 while limits hold per instance because their shared store (Redis, PostgreSQL) is out of reach.",
    registers,
    collect() {
      this.set(read((s) => s.limits?.degraded()) ? 1 : 0);
    },
  });
}
