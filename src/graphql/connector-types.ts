import type { ConnectorHealth, ConnectorState, RefusedTool } from "../connectors/connector-kind.ts";
import type {
  BrokenDependant,
  ChangeCause,
  ConnectorChange,
  ConnectorRecord,
  ConnectorTool,
} from "../connectors/connector-record.ts";
import type { AppliedPolicy } from "../retry/applied-policy.ts";
import { resolvePolicy } from "../retry/policy.ts";
import { builder } from "./builder.ts";
import { requireAdmin } from "./context.ts";
import { TierEnum } from "./enums.ts";
import { RetryPolicyRef } from "./tool.ts";

/**
 * The objects a connector is served as (docs/connectors.md §12). Only an ADMIN reaches
 * them: every query, mutation and subscription that returns one asks `requireAdmin`
 * first (`connector.ts`).
 */

export const ConnectorStateEnum = builder.enumType("ConnectorState", {
  description: "A connector's connection on the instance that answers (docs/connectors.md §11).",
  values: {
    IDLE: { value: "IDLE", description: "Not opened yet on this instance: it opens on first use." },
    CONNECTING: {
      value: "CONNECTING",
      description: "Opening, or reopening after a drop (backoff 0.5 s doubling to 30 s).",
    },
    CONNECTED: { value: "CONNECTED", description: "The upstream answered." },
    DOWN: { value: "DOWN", description: "The last connect failed; calls fail UNAVAILABLE until it reconnects." },
  } satisfies Record<ConnectorState, { value: ConnectorState; description: string }>,
});

export const ConnectorChangeCauseEnum = builder.enumType("ConnectorChangeCause", {
  description: "What made a new listing version (docs/connectors.md §7).",
  values: {
    PUT: { value: "PUT", description: "An ADMIN's putConnector." },
    REFRESH: { value: "REFRESH", description: "An ADMIN's refreshConnector." },
    LIST_CHANGED: {
      value: "LIST_CHANGED",
      description: "The upstream said its tool list changed (MCP notifications/tools/list_changed).",
    },
    POLL: { value: "POLL", description: "The periodic refresh (TAI_CONNECTOR_REFRESH_SECONDS)." },
  } satisfies Record<ChangeCause, { value: ChangeCause; description: string }>,
});

const RefusedToolRef = builder.objectRef<RefusedTool>("RefusedTool").implement({
  description:
    "An upstream tool that could not be represented on the surface, with the reason; never dropped silently.",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The upstream's name for it." }),
    reason: t.exposeString("reason", { description: "Why it is not on the surface." }),
  }),
});

const ConnectorHealthRef = builder.objectRef<ConnectorHealth>("ConnectorHealth").implement({
  description: "The connection of the instance that answers (each instance holds its own).",
  fields: (t) => ({
    state: t.field({ type: ConnectorStateEnum, description: "Where the connection is.", resolve: (h) => h.state }),
    since: t.field({ type: "DateTime", description: "When it entered that state.", resolve: (h) => h.since }),
    lastError: t.string({
      nullable: true,
      description: "The last connect or call failure's message; names no setting's value.",
      resolve: (h) => h.lastError ?? null,
    }),
    failures: t.exposeInt("failures", { description: "Consecutive failed connects since the last success." }),
  }),
});

type ToolChange = ConnectorChange["diff"]["changed"][number];

const ConnectorToolChangeRef = builder.objectRef<ToolChange>("ConnectorToolChange").implement({
  description: "A tool whose listing changed, and which of its fields did.",
  fields: (t) => ({
    name: t.exposeString("name", { description: "Its surface name." }),
    fields: t.stringList({
      description: "inputSchema, outputSchema, description, annotations, proposedTier.",
      resolve: (c) => [...c.fields],
    }),
  }),
});

const BrokenDependantRef = builder.objectRef<BrokenDependant>("BrokenDependant").implement({
  description: "A preset or manifest that a listing change broke (a refresh stores it; a put is refused instead).",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The preset's or manifest's name." }),
    kind: t.exposeString("kind", { description: "PRESET or MANIFEST." }),
    tool: t.exposeString("tool", { description: "The surface name it depends on." }),
    reason: t.exposeString("reason", { description: "What broke." }),
  }),
});

export const ConnectorChangeRef = builder.objectRef<ConnectorChange>("ConnectorChange").implement({
  description: "How one listing version differs from the one before it (surface names).",
  fields: (t) => ({
    connector: t.exposeString("connector", { description: "The connector's name." }),
    listingVersion: t.exposeInt("listingVersion", { description: "The listing version this change made." }),
    cause: t.field({ type: ConnectorChangeCauseEnum, description: "What made it.", resolve: (c) => c.cause }),
    at: t.field({ type: "DateTime", description: "When it was stored.", resolve: (c) => c.at }),
    added: t.stringList({ description: "Surface names the listing gained.", resolve: (c) => [...c.diff.added] }),
    removed: t.stringList({ description: "Surface names the listing lost.", resolve: (c) => [...c.diff.removed] }),
    changed: t.field({
      type: [ConnectorToolChangeRef],
      description: "Tools whose listing changed, with the fields.",
      resolve: (c) => c.diff.changed,
    }),
    broken: t.field({
      type: [BrokenDependantRef],
      description: "Presets and manifests the change broke.",
      resolve: (c) => c.diff.broken,
    }),
  }),
});

/** The retry policy an ADMIN declared on a connector tool, as every run of it applies it; null: none (one attempt). */
function declaredPolicy(tool: ConnectorTool): AppliedPolicy | null {
  if (!tool.decision.retry) return null;
  return { ...resolvePolicy(tool.surfaceName, tool.decision.retry), declaredOn: tool.surfaceName };
}

const ConnectorToolRef = builder.objectRef<ConnectorTool>("ConnectorTool").implement({
  description: "One upstream tool as the connector's stored listing holds it, with the ADMIN's decisions.",
  fields: (t) => ({
    name: t.exposeString("surfaceName", { description: "The surface name <connector>_<tool>." }),
    upstreamName: t.exposeString("name", { description: "The upstream's own name for it." }),
    title: t.string({ nullable: true, description: "The upstream's title.", resolve: (c) => c.title ?? null }),
    description: t.exposeString("description", { description: "The upstream's description, unchanged." }),
    inputSchema: t.field({
      type: "JSONObject",
      description: "The upstream's input schema, unchanged.",
      resolve: (c) => c.inputSchema as Record<string, unknown>,
    }),
    outputSchema: t.field({
      type: "JSONObject",
      nullable: true,
      description: "The upstream's output schema; null: none.",
      resolve: (c) => (c.outputSchema as Record<string, unknown> | undefined) ?? null,
    }),
    annotations: t.field({
      type: "JSONObject",
      nullable: true,
      description: "The upstream's annotations, untrusted.",
      resolve: (c) => c.annotations ?? null,
    }),
    proposedTier: t.field({
      type: TierEnum,
      description: "The tier the upstream's description proposes.",
      resolve: (c) => c.proposedTier,
    }),
    tier: t.field({
      type: TierEnum,
      description: "The tier that applies: the ADMIN's, else the pinned proposal.",
      resolve: (c) => c.tier,
    }),
    tierAssigned: t.exposeBoolean("tierAssigned", {
      description: "The tier is the ADMIN's decision (else the proposal).",
    }),
    idempotent: t.exposeBoolean("idempotent", { description: "The ADMIN claimed it idempotent (retries allowed)." }),
    enabled: t.exposeBoolean("enabled", { description: "false: kept off the surface." }),
    pauses: t.boolean({
      description: "A call may park on the upstream's questions.",
      resolve: (c) => c.pauses === true,
    }),
    retryPolicy: t.field({
      type: RetryPolicyRef,
      nullable: true,
      description: "The ADMIN's declared policy; null = exactly one attempt.",
      resolve: declaredPolicy,
    }),
    timeoutSeconds: t.int({
      nullable: true,
      description: "The ADMIN's per-attempt timeout; null: the connector's.",
      resolve: (c) => c.decision.timeoutSeconds ?? null,
    }),
  }),
});

export const ConnectorRef = builder.objectRef<ConnectorRecord>("Connector").implement({
  description:
    "An upstream (MCP server, OpenAPI service, a plugin's kind) whose tools are surface entries of origin CONNECTOR. ADMIN only.",
  fields: (t) => ({
    name: t.exposeString("name", { description: "Its name; its tools are <name>_<tool>." }),
    kind: t.exposeString("kind", { description: "The connector kind (mcp, openapi, a plugin's)." }),
    description: t.exposeString("description", { description: "What it is for." }),
    settings: t.field({
      type: "JSONObject",
      description: 'As written: "!ENV NAME" markers are served as markers.',
      resolve: (c) => c.settings,
    }),
    version: t.exposeInt("version", {
      description: "1 at creation, +1 per put; putConnector's and deleteConnector's expectedVersion.",
    }),
    listingVersion: t.exposeInt("listingVersion", {
      description: "The stored listing's version: +1 each time the upstream's tools differ.",
    }),
    tools: t.field({
      type: [ConnectorToolRef],
      description: "The upstream's tools as last listed.",
      resolve: (c) => c.tools,
    }),
    refused: t.field({
      type: [RefusedToolRef],
      description: "Upstream tools that could not be represented, with the reason.",
      resolve: (c) => c.refused,
    }),
    refreshedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the listing was last fetched.",
      resolve: (c) => c.refreshedAt,
    }),
    refreshError: t.string({
      nullable: true,
      description: "Why the last refresh failed; null: it did not.",
      resolve: (c) => c.refreshError,
    }),
    health: t.field({
      type: ConnectorHealthRef,
      description: "The answering instance's connection.",
      resolve: (c) => c.health,
    }),
    changes: t.field({
      type: [ConnectorChangeRef],
      description: "Its listing changes, newest first.",
      args: { last: t.arg.int({ defaultValue: 10, description: "How many." }) },
      resolve: (c, { last }, ctx) =>
        ctx.runtime.connectors.changes(requireAdmin(ctx, "read connectors"), c.name, last ?? 10),
    }),
  }),
});

export const ConnectorResultRef = builder
  .objectRef<{ connector: ConnectorRecord; change: ConnectorChange | null }>("ConnectorResult")
  .implement({
    description: "A connector after a put or refresh, and the listing change it made.",
    fields: (t) => ({
      connector: t.field({
        type: ConnectorRef,
        description: "The connector as stored now.",
        resolve: (r) => r.connector,
      }),
      change: t.field({
        type: ConnectorChangeRef,
        nullable: true,
        description: "The listing change; null when the listing did not change.",
        resolve: (r) => r.change,
      }),
    }),
  });
