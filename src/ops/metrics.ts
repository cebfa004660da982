import { Counter, Histogram, Registry } from "prom-client";
import type { DispatchObserver } from "../dispatch/observe.ts";
import type { Door, RunRecord } from "../dispatch/run-record.ts";
import type { MetricSources } from "./metric-source-types.ts";
import { registerConnectorMetrics, registerRuntimeGauges } from "./scraped-metrics.ts";
import { registerLimitMetrics } from "./limit-metrics.ts";

export { SUBSCRIBER_KINDS, type MetricSources, type NameKind, type SubscriberKind } from "./metric-source-types.ts";

/**
 * The label a dispatch of a name that is not on the surface counts under: callers choose names, and labels must stay
 * few.
 */
export const UNKNOWN_TOOL = "(unknown)";
/**
 * Past this many distinct registered names (code, manifests: an ADMIN's), further ones count as {@link OTHER_TOOLS}.
 */
export const MAX_TOOL_LABELS = 500;
export const OTHER_TOOLS = "(other)";
/**
 * Past this many distinct preset names, further presets count as {@link OTHER_PRESETS}: any
 * USER may write presets, so they get a budget of their own, and registered names stay
 * labelled however many presets a caller creates and dispatches.
 */
export const MAX_PRESET_LABELS = 50;
export const OTHER_PRESETS = "(other preset)";
/**
 * Past this many distinct model labels (a caller may name a model in llmKwargs), further ones count as {@link
 * OTHER_MODELS}.
 */
export const MAX_MODEL_LABELS = 50;
export const OTHER_MODELS = "(other)";
/** The model label of a RunUsage that named none. */
export const UNKNOWN_MODEL = "(unknown)";

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The runtime's Prometheus metrics (docs/deploy.md §"Metrics"), in a registry of its own:
 * several runtimes in one process (the tests) never share a counter. Counters move on
 * the hot path through prom-client's label lookups only; everything else is read when
 * `/metrics` is scraped.
 */
export class Metrics implements DispatchObserver {
  readonly registry = new Registry();
  private sources: MetricSources | null = null;
  private readonly dispatches: Counter<"tool" | "status" | "door">;
  private readonly duration: Histogram<"tool" | "door">;
  private readonly attempts: Counter<"tool">;
  private readonly retries: Counter<"tool">;
  private readonly lagging: Counter<"kind">;
  private readonly batchSize: Histogram;
  private readonly commitSeconds: Histogram;
  private readonly redisErrors: Counter;
  private readonly llmTokensTotal: Counter<"model" | "direction">;
  private readonly models = new Set<string>();

  constructor() {
    const registers = [this.registry];
    this.dispatches = new Counter({
      name: "tai42_dispatches_total",
      help: "Dispatches through the chokepoint, by tool, final status and door (rejections included).",
      labelNames: ["tool", "status", "door"],
      registers,
    });
    this.duration = new Histogram({
      name: "tai42_dispatch_duration_seconds",
      help: "Time from a dispatch's admission to its answer.",
      labelNames: ["tool", "door"],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.attempts = new Counter({
      name: "tai42_attempts_total",
      help: "Attempts of tool bodies (each execution makes one or more).",
      labelNames: ["tool"],
      registers,
    });
    this.retries = new Counter({
      name: "tai42_retries_total",
      help: "Attempts that were retries of a failed one.",
      labelNames: ["tool"],
      registers,
    });
    this.lagging = new Counter({
      name: "tai42_subscribers_lagging_closed_total",
      help: "Subscriptions closed because the subscriber fell behind its bounded buffer.",
      labelNames: ["kind"],
      registers,
    });
    this.batchSize = new Histogram({
      name: "tai42_event_log_batch_size",
      help: "Jobs per group-committed run-log batch.",
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
      registers,
    });
    this.commitSeconds = new Histogram({
      name: "tai42_event_log_commit_seconds",
      help: "Time to write and commit one run-log batch.",
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.llmTokensTotal = new Counter({
      name: "tai42_llm_tokens_total",
      help: "Tokens of agent runs' model calls (sub-agents included), as the providers reported them, by model and direction (input, output).",
      labelNames: ["model", "direction"],
      registers,
    });
    this.redisErrors = new Counter({
      name: "tai42_redis_errors_total",
      help: "Errors on the Redis connections (publish, subscribe, reconnect).",
      registers,
    });
    const read = <T>(fn: (s: MetricSources) => T): T | null => (this.sources ? fn(this.sources) : null);
    registerRuntimeGauges(registers, read);
    registerConnectorMetrics(registers, read);
    registerLimitMetrics(registers, read);
  }

  /** Connects the gauges to what they read; until then they read zero. */
  bind(sources: MetricSources): void {
    this.sources = sources;
  }

  /**
   * The names labelled so far: registered ones (bounded by {@link MAX_TOOL_LABELS}) and presets (by {@link
   * MAX_PRESET_LABELS}).
   */
  private readonly labelled = { registered: new Set<string>(), preset: new Set<string>() };

  /**
   * The label a tool is counted under: its name, until its kind's budget of names is
   * spent; a name not on the surface is {@link UNKNOWN_TOOL}. Without sources (a bare
   * Metrics), every name counts as registered.
   */
  private toolLabel(name: string): string {
    const kind = this.sources ? this.sources.kind(name) : "registered";
    if (kind === null) return UNKNOWN_TOOL;
    const seen = this.labelled[kind];
    if (seen.has(name)) return name;
    if (seen.size >= (kind === "preset" ? MAX_PRESET_LABELS : MAX_TOOL_LABELS))
      return kind === "preset" ? OTHER_PRESETS : OTHER_TOOLS;
    seen.add(name);
    return name;
  }

  /** A run's RunUsage: its tokens, under its model's label (bounded by {@link MAX_MODEL_LABELS}). */
  llmTokens(model: string | null, input: number, output: number): void {
    let label = model || UNKNOWN_MODEL;
    if (model && !this.models.has(label)) {
      if (this.models.size >= MAX_MODEL_LABELS) label = OTHER_MODELS;
      else this.models.add(label);
    }
    if (input > 0) this.llmTokensTotal.labels(label, "input").inc(input);
    if (output > 0) this.llmTokensTotal.labels(label, "output").inc(output);
  }

  dispatched(run: RunRecord, door: Door, seconds: number): void {
    const tool = this.toolLabel(run.tool);
    this.dispatches.labels(tool, run.status, door).inc();
    this.duration.labels(tool, door).observe(seconds);
  }

  attempted(tool: string, attempts: number): void {
    if (attempts <= 0) return;
    const label = this.toolLabel(tool);
    this.attempts.labels(label).inc(attempts);
    if (attempts > 1) this.retries.labels(label).inc(attempts - 1);
  }

  /** A run-log batch of `size` jobs was written in `seconds`. */
  logBatch(size: number, seconds: number): void {
    this.batchSize.observe(size);
    this.commitSeconds.observe(seconds);
  }

  laggingClosed(kind: string): void {
    this.lagging.labels(kind).inc();
  }

  redisError(): void {
    this.redisErrors.inc();
  }

  /** The exposition text (Prometheus 0.0.4 format). */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
