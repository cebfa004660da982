import type { FlowControl } from "./limits/flow-control.ts";
import type { App } from "./app.ts";
import type { KeyStore } from "./auth/keys.ts";
import type { TokenVerifier } from "./auth/token-verifier.ts";
import type { Config } from "./config.ts";
import type { Db, DbProvider } from "./db/client.ts";
import type { Dispatcher } from "./dispatch/dispatcher.ts";
import type { RunStore } from "./dispatch/run-store.ts";
import type { OrderedRunEvents } from "./runlog/ordered-feed.ts";
import type { Bus } from "./events/bus.ts";
import type { Logger } from "./log.ts";
import type { Secrets } from "./secrets/secrets.ts";
import type { Surface } from "./registry/surface.ts";
import type { StoredSurface } from "./composition/stored-surface.ts";
import type { PresetService } from "./presets/preset-service.ts";
import type { ScheduleService } from "./schedules/schedule-service.ts";
import type { ManifestService } from "./manifests/manifest-service.ts";
import type { InteractionService } from "./interactions/interaction-service.ts";
import type { SpanStore } from "./extensions/builtin/spans.ts";
import type { ExtensionDefinition } from "./extensions/extension.ts";
import type { AgentService } from "./agent/agent-service.ts";
import type { Metrics } from "./ops/metrics.ts";
import type { ConnectorApi } from "./connectors/connector-record.ts";
import type { ConnectionManager } from "./connectors/connections.ts";

/** Options of `createRuntime` (`runtime.ts`). */
export interface RuntimeOptions {
  config: Config;
  /** The handle user modules register on. @default the shared `app` */
  app?: App;
  /** Import `config.modules` (TAI_MODULES). @default true */
  loadModules?: boolean;
  log?: Logger;
  /** Milliseconds between interaction-expiry sweeps. @default 1000 */
  sweepMs?: number;
  /** Milliseconds between passes over the due schedules. @default 1000 */
  scheduleTickMs?: number;
  /**
   * Milliseconds between deletions of expired key-value rows (MCP sessions, the cache, the demo store). @default 60000
   */
  storeSweepMs?: number;
  /**
   * Seconds between instance heartbeats; instances are declared gone after three missed. @default
   * config.heartbeatSeconds and config.deadAfterSeconds
   */
  heartbeatSeconds?: number;
  /** Where run and attempt spans go besides OTLP (tests: an InMemorySpanExporter); with it, tracing is on. */
  traceExporter?: import("@opentelemetry/sdk-trace").SpanExporter;
  /**
   * The instance duties this process takes on. `"server"`: it registers as an instance and
   * beats, fails the runs of instances that are gone, expires interactions and recovers
   * agent runs. `"runs"` (a one-shot `tai tools run`): it registers and beats, so that no
   * server takes its runs for orphans, and does nothing else. `"none"` (a one-shot command
   * that reads or writes stored data): no instance duty at all.
   * @default "server"
   */
  duties?: "server" | "runs" | "none";
}

/**
 * The one object every door holds: database, registry surface, bus, keys and the
 * dispatch chokepoint. Domain code takes what it needs from here; nothing in it knows
 * about GraphQL.
 */
export interface Runtime {
  config: Config;
  db: Db;
  provider: DbProvider;
  app: App;
  /** Runtime-owned registrations (demo tools, built-ins). */
  builtins: App;
  surface: Surface;
  bus: Bus;
  keys: KeyStore;
  /** Access tokens from the configured issuers (docs/security-model.md §1.2); null: API keys only. */
  tokens: TokenVerifier | null;
  runs: RunStore;
  /** The run event log, live, in seq order with no gap, whichever instance wrote it. */
  runFeed: OrderedRunEvents;
  presets: PresetService;
  manifests: ManifestService;
  /** Stored presets and the active manifest, applied to the surface. */
  stored: StoredSurface;
  dispatcher: Dispatcher;
  /** Flow control: the declared limits' counters, slots and breakers (docs/flow-control.md). */
  flow: FlowControl;
  /** Every value never served or stored (docs/security-model.md §3), and the `!ENV` resolver. */
  secrets: Secrets;
  instanceId: string;
  log: Logger;
  /** Spans of monitored calls (the built-in `monitor` extension). */
  spans: SpanStore;
  /** The extension catalog lookup (built-ins, then modules). */
  extension(name: string): ExtensionDefinition | undefined;
  /** Every loaded extension. */
  extensions(): ExtensionDefinition[];
  /** Answers and expiry of parked runs' interactions. */
  interactions: InteractionService;
  /** Agents: runs, their event logs, threads, skills and LLM providers (docs/agent-stream.md). */
  agents: AgentService;
  /** Base URL this server is reachable at (callback URLs); set when the server listens. */
  publicUrl: string;
  /** Runs failed as "interrupted by restart" at start. */
  recovered: string[];
  /** Connectors: stored upstreams whose tools are surface entries (docs/connectors.md), ADMIN only. */
  connectors: ConnectorApi;
  /** Stored cron schedules that dispatch background runs (docs/run-lifecycle.md §11.7), ADMIN only. */
  schedules: ScheduleService;
  /** This instance's connector connections (one per connector). */
  connections: ConnectionManager;
  /** Prometheus metrics of this runtime (`/metrics`, docs/deploy.md). */
  metrics: Metrics;
  /**
   * Stops accepting runs and waits for those in flight (cancelling them past the grace period); the first step of
   * {@link Runtime.close}.
   */
  drain(): Promise<void>;
  /** Stops accepting runs, drains or cancels those in flight, closes connections. */
  close(): Promise<void>;
}
