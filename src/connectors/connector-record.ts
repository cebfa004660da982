import type { LimitsInit } from "../limits/limits.ts";
import type { Caller, Tier } from "../auth/roles.ts";
import type { RetryPolicyInit } from "../retry/policy.ts";
import type { ConnectorHealth, RefusedTool, UpstreamTool } from "./connector-kind.ts";

/**
 * The stored shapes of a connector (docs/connectors.md §2) and the service every door
 * calls (`ConnectorService`, `src/connectors/connector-service.ts`): GraphQL, the CLI and
 * the dashboard are thin over it.
 */

/** An ADMIN's decision about one upstream tool, by its upstream name. */
export interface ToolDecision {
  /** The assigned tier; absent: the proposal (never lowered by a later proposal, §4). */
  tier?: Tier;
  /** A retry policy: `maxAttempts > 1` needs `idempotent: true`, the ADMIN's claim (docs/connectors.md §5). */
  retry?: RetryPolicyInit;
  /** Per-attempt timeout. @default the connector's `timeoutSeconds`, else 30 */
  timeoutSeconds?: number;
  /** false keeps the tool off the surface. @default true */
  enabled?: boolean;
  /** Concurrency, rate and circuit breaker (docs/flow-control.md §2), as the ADMIN wrote them. */
  limits?: LimitsInit;
}

/** What a put writes. */
export interface ConnectorInput {
  name: string;
  kind: string;
  description?: string;
  /** The kind's settings; sealed fields hold `!ENV` markers. */
  settings: Record<string, unknown>;
  /** Decisions by upstream tool name. */
  tools?: Record<string, ToolDecision>;
}

/** The stored listing: the upstream's tools as last fetched, and what could not be represented. */
export interface StoredListing {
  tools: UpstreamTool[];
  refused: RefusedTool[];
  /** The tier first proposed for each tool: a later, lower proposal does not lower it (docs/connectors.md §4). */
  pinned: Record<string, Tier>;
}

/** One tool of a connector as served: its surface name, its proposal and what applies. */
export interface ConnectorTool extends UpstreamTool {
  /** `<connector>_<tool>`, wire-safe (docs/connectors.md §3). */
  surfaceName: string;
  /** The tier that applies: the decision's, else the pinned proposal. */
  tier: Tier;
  /** Whether the tier is the ADMIN's (true) or the proposal (false). */
  tierAssigned: boolean;
  enabled: boolean;
  /** The ADMIN claimed idempotency (retries allowed). */
  idempotent: boolean;
  decision: ToolDecision;
}

/** What made a new listing version. */
export type ChangeCause = "PUT" | "REFRESH" | "LIST_CHANGED" | "POLL";

/** A preset or manifest a listing change breaks (docs/connectors.md §7): refused at put, marked at a refresh. */
export interface BrokenDependant {
  /** The preset's or manifest's name. */
  name: string;
  kind: "PRESET" | "MANIFEST";
  /** The surface name it depends on. */
  tool: string;
  reason: string;
}

/** How a listing version differs from the one before (surface names). */
export interface ListingDiff {
  added: string[];
  removed: string[];
  /** A tool whose `inputSchema`, `outputSchema`, `description`, `annotations` or proposal changed, with the fields. */
  changed: Array<{ name: string; fields: string[] }>;
  broken: BrokenDependant[];
}

export interface ConnectorChange {
  connector: string;
  listingVersion: number;
  cause: ChangeCause;
  diff: ListingDiff;
  at: string;
}

/** A connector as every read serves it (ADMIN only): settings as written, markers not values. */
export interface ConnectorRecord {
  name: string;
  kind: string;
  description: string;
  settings: Record<string, unknown>;
  decisions: Record<string, ToolDecision>;
  version: number;
  listingVersion: number;
  tools: ConnectorTool[];
  refused: RefusedTool[];
  refreshedAt: string | null;
  refreshError: string | null;
  /** This instance's connection. */
  health: ConnectorHealth;
  createdAt: string;
  updatedAt: string;
}

/**
 * The one entry point for connector configuration. Every method is ADMIN-only (a lower
 * caller gets `FORBIDDEN`); bad input is an `ApiError` (`BAD_USER_INPUT` with issues at
 * their paths, `NOT_FOUND`, `CONFLICT` for a stale `expectedVersion`) and stores nothing.
 */
export interface ConnectorApi {
  list(caller: Caller): Promise<ConnectorRecord[]>;
  get(caller: Caller, name: string): Promise<ConnectorRecord | null>;
  /**
   * Creates (no `expectedVersion`, or 0) or replaces (the stored version) a connector:
   * checks the settings, connects, lists the upstream, and stores the listing with its
   * first or next version. An upstream that cannot be reached refuses the put
   * (`BAD_USER_INPUT`, the connect failure's message) and stores nothing.
   */
  put(
    caller: Caller,
    input: ConnectorInput,
    expectedVersion?: number,
  ): Promise<{ connector: ConnectorRecord; change: ConnectorChange | null }>;
  /** Re-lists the upstream now: a new listing version and its change when it differs, else null. */
  refresh(caller: Caller, name: string): Promise<{ connector: ConnectorRecord; change: ConnectorChange | null }>;
  delete(caller: Caller, name: string, expectedVersion?: number): Promise<boolean>;
  /** The last `last` changes, newest first. */
  changes(caller: Caller, name: string, last?: number): Promise<ConnectorChange[]>;
}
