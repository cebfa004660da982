import type { z } from "zod";
import type { Tier } from "../auth/roles.ts";
import type { ExpiringStore } from "../db/expiring-store.ts";
import type { Bus } from "../events/bus.ts";
import type { Logger } from "../log.ts";
import type { ToolContext } from "../tools/definition.ts";
import type { JsonSchema } from "../tools/json-schema.ts";

/**
 * The connector plugin kind (docs/connectors.md): how one family of upstreams (MCP
 * servers, OpenAPI services, a plugin's own) is listed and called. A kind is code; a
 * connector is stored configuration an ADMIN writes, naming its kind and its settings.
 * Contracts here are what the core (`src/connectors/`) relies on; the built-in kinds are
 * `mcp` (`src/connectors/mcp/`) and `openapi` (`src/connectors/openapi/`).
 */
export interface ConnectorKind<S = unknown> {
  /** The kind's name as a stored connector names it (`mcp`, `openapi`): `^[a-z][a-z0-9-]{0,31}$`. */
  name: string;
  description: string;
  /**
   * The settings a connector of this kind stores, checked at every write with `!ENV`
   * markers still in place (a marker is a string, so a sealed field is `z.string()`).
   * Issues are reported at their paths under `/settings`.
   */
  settings: z.ZodType<S>;
  /**
   * The paths of `settings` whose values are sealed (docs/connectors.md §3): each must be an
   * `!ENV` marker. A path segment `*` matches every key of an object (`headers/*`, `env/*`).
   */
  sealed: readonly string[];
  /**
   * The HTTP origins these settings reach (`url`, an OpenAPI server URL), which the
   * network rules allow by default (docs/connectors.md §6); none for a stdio upstream.
   */
  origins(settings: S): string[];
  /**
   * Opens this instance's connection. `env.settings` are resolved (markers replaced by
   * their values, which the runtime's secrets already hold). Contract: resolves once the
   * upstream answered (an MCP `initialize`, an OpenAPI document read), throws a
   * `ToolError` (kind UNAVAILABLE, NETWORK, TIMEOUT or PERMISSION_DENIED) whose message
   * names no setting's value.
   */
  connect(env: ConnectorEnv<S>): Promise<ConnectorConnection>;
}

/** One upstream tool as a connector's stored listing holds it; served unchanged. */
export interface UpstreamTool {
  /** The upstream's own name: an MCP tool's `name`; an OpenAPI `operationId`, else `METHOD /path`. */
  name: string;
  title?: string;
  description: string;
  /** The upstream's input schema, as sent (an OpenAPI operation's, built from its parameters and body). */
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  /** The upstream's annotations as sent (MCP `annotations`). Untrusted: they only propose a tier. */
  annotations?: Record<string, unknown>;
  /** What the upstream's own description proposes: `readOnlyHint` or GET/HEAD/OPTIONS → read, else write. */
  proposedTier: Tier;
  /** Whether a call may pause on the upstream (MCP elicitation): the entry is in the pausing set. */
  pauses?: boolean;
  /**
   * Kind-private data needed to call it (OpenAPI: method, path, parameter locations). Stored, served to ADMINs only.
   */
  binding?: Record<string, unknown>;
}

/** An upstream tool the importer cannot represent, listed with the reason (never dropped silently). */
export interface RefusedTool {
  name: string;
  reason: string;
}

/** What one `list()` found. */
export interface UpstreamListing {
  tools: UpstreamTool[];
  refused: RefusedTool[];
}

/** What a call knows of its run, beside the input. */
export interface UpstreamCall {
  /**
   * The attempt's context: `signal` (cancel, timeout, shutdown), `runId`, `onUpdate` (progress), `openInteraction`,
   * `log`.
   */
  ctx: ToolContext;
  /**
   * What an upstream may deduplicate on: the run's idempotency key when the caller gave
   * one, else the run id; the same for every attempt of the run. Forwarded as MCP
   * `_meta["tai42/idempotencyKey"]` and as the HTTP `Idempotency-Key` header.
   */
  idempotencyKey: string;
  /** The ADMIN claimed the tool idempotent (its stored retry policy says so). */
  idempotent: boolean;
  /** Milliseconds this attempt may take (the entry's timeout): a call still waiting then fails TIMEOUT. */
  timeoutMs: number;
}

/**
 * A live connection to one upstream, owned by the instance's connection manager
 * (`src/connectors/connections.ts`): one per connector per instance.
 */
export interface ConnectorConnection {
  /** Reads the upstream's current tool list. */
  list(): Promise<UpstreamListing>;
  /**
   * Calls one tool. Returns what a tool body returns: a value, a `toolResult(...)`, or a
   * `park(...)` when the upstream asked a question (`UpstreamTool.pauses`). Throws a
   * `ToolError`: an upstream's own error is kind UPSTREAM with its text; a dropped or
   * unreachable upstream UNAVAILABLE or NETWORK; a call past `timeoutMs` TIMEOUT.
   */
  call(tool: UpstreamTool, input: Record<string, unknown>, call: UpstreamCall): Promise<unknown>;
  /** Continues a call parked by `call` once its interactions are answered (on any instance). */
  resume?(tool: UpstreamTool, state: unknown, answers: Record<string, unknown>, call: UpstreamCall): Promise<unknown>;
  /** Closes the connection (a stdio upstream's process is ended). Never throws. */
  close(): Promise<void>;
}

/** A connection's state on one instance (the connector's `health`, and `/metrics`). */
export type ConnectorState = "IDLE" | "CONNECTING" | "CONNECTED" | "DOWN";

export interface ConnectorHealth {
  state: ConnectorState;
  /** ISO time the state was entered. */
  since: string;
  /** The last connect or call failure's message (no setting's value), while DOWN or reconnecting. */
  lastError?: string;
  /** Consecutive failed connects since the last success. */
  failures: number;
}

/** What a kind is handed when it opens a connection. */
export interface ConnectorEnv<S = unknown> {
  /** The connector's stored name. */
  name: string;
  /** The settings with every `!ENV` marker resolved. */
  settings: S;
  log: Logger;
  /**
   * `fetch` under the connector's network rules (docs/connectors.md §6): only allowed
   * hosts; link-local, metadata and (unless allowed) private addresses refused at connect
   * time, after DNS resolution. Every HTTP request of a kind goes through it.
   */
  fetch: typeof fetch;
  /** Tells the manager the upstream's tool list changed (MCP `notifications/tools/list_changed`): a refresh follows. */
  toolsChanged(): void;
  /** Tells the manager the connection dropped (a crashed process, a closed stream): it reconnects with backoff. */
  lost(error: Error): void;
  /** Whether runs on this instance can park: elicitation is advertised to the upstream only when true. */
  canPark: boolean;
  /** The store every instance shares (a parked upstream call's answer and result cross instances through it). */
  store: ExpiringStore;
  bus: Bus;
  instanceId: string;
}
